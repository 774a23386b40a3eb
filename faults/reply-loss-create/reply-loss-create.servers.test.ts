import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-create on a real ZooKeeper ensemble, scripted: A acquires and releases once (so the lock's directories
 * exist: a create of one is a miss, docs/faults.md), then its own proxies are armed to drop the reply to its next
 * create — its lock node — and reset the connection; the lock directory is read on that server right after the drop
 * and again as the acquire is granted. The 10-shot measurement of issue 46 is a command in docs/faults.md, not a
 * suite test.
 */

type Params = {
  droppedOn: string[];
  path?: string;
  after: Record<string, string>;
  atGrant?: Record<string, string>;
};

describe('reply-loss-create', () => {
  it("--lock=zookeeper, scripted: A's create is committed (its ephemeral node on the server) but unacknowledged, and the recipe recovers that node without a second", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-create',
        steps: [
          'A acquire',
          'A release',
          'start reply-loss-create A',
          'A acquire',
          'wait reply-loss-create A',
          'heal reply-loss-create A',
          'A read',
          'A write',
          'A release',
        ],
      },
      ['--lock=zookeeper'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const end = run.faults.find((o) => o.f === 'reply-loss-create' && o.value.phase === 'end')!;
    const p = end.value.params as Params;
    expect(p.droppedOn.length, run.summary).toBe(1);
    // The server's evidence: an ephemeral child named by the create's path right after the drop, and that child
    // alone, on the same session, as the acquire was granted.
    const base = p.path!.slice(p.path!.lastIndexOf('/') + 1);
    const made = Object.entries(p.after).filter(([, owner]) => owner !== '0');
    expect(made.length, JSON.stringify(p)).toBe(1);
    expect(made[0][0].startsWith(base), JSON.stringify(p)).toBe(true);
    expect(p.atGrant, JSON.stringify(p)).toEqual(Object.fromEntries(made));
    const [shot] = faultHits(run.ops)['reply-loss-create'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
