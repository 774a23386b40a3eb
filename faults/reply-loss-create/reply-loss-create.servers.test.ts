import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis } from '../../test/support/nemesis-test-kit.ts';

/**
 * reply-loss-create on a real ZooKeeper ensemble: a client's create (its lock node) reaches a server through the
 * client's own proxy, the reply is dropped and the connection reset, and the lock directory is read on that server
 * right after the drop and again as the acquire is granted. Each shot lasts until that acquire completes: a reconnect
 * and a look at the directory, well under a second.
 */

type Params = {
  droppedOn: string[];
  path?: string;
  after: Record<string, string>;
  atGrant?: Record<string, string>;
};

describe('reply-loss-create', () => {
  it('--lock=zookeeper: ≥ 9 of 10 shots are committed but unacknowledged, and the recipe recovers its node without a second', async () => {
    const run = await runNemesis([
      '--lock=zookeeper',
      '--nemesis=reply-loss-create',
      '--nemesis-interval=500',
      '--time-limit=30',
    ]);
    const ends = run.faults.filter((o) => o.f === 'reply-loss-create' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBeGreaterThanOrEqual(10);
    const shots = faultHits(run.ops)['reply-loss-create'].shots;
    const hits = shots.filter((s) => s.hit);
    expect(hits.length / ends.length, JSON.stringify(shots)).toBeGreaterThanOrEqual(0.9);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);

    // The server's evidence behind each hit: an ephemeral child named by the create's path right after the drop,
    // and that child alone, on the same session, as the acquire was granted. A shot's end record is the first after
    // its start (one shot at a time).
    for (const s of hits) {
      const p = ends.find((e) => e.index > s.index)!.value.params as Params;
      const base = p.path!.slice(p.path!.lastIndexOf('/') + 1);
      const made = Object.entries(p.after).filter(([, owner]) => owner !== '0');
      expect(made.length).toBeGreaterThan(0);
      for (const [name] of made) expect(name.startsWith(base)).toBe(true);
      const granted = Object.entries(p.atGrant!);
      expect(granted).toHaveLength(1);
      expect(p.after[granted[0][0]]).toBe(granted[0][1]);
    }
  });
});
