import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis } from '../../test/support/nemesis-test-kit.ts';

/**
 * reply-loss-renew on a real Redis: the holder's watchdog renews (--watchdog, every TTL/3) inside a section longer
 * than that (--think=1000), its extend script reaches Redis, the reply is dropped by the client's own proxy, and the
 * key is read right after the drop.
 */

type Params = {
  droppedOn: string[];
  valuesAfter: Record<string, string>;
  pttlAfterMs: Record<string, number>;
  readsApartMs?: number;
};

describe('reply-loss-renew', () => {
  it('--lock=redis --watchdog: ≥ 9 of 10 shots are committed but unacknowledged: the key extended, the watchdog failed', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=reply-loss-renew',
      '--watchdog',
      '--think=1000',
      '--nemesis-interval=500',
      '--time-limit=40',
    ]);
    const ends = run.faults.filter((o) => o.f === 'reply-loss-renew' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBeGreaterThanOrEqual(10);
    const shots = faultHits(run.ops)['reply-loss-renew'].shots;
    const hits = shots.filter((s) => s.hit);
    expect(hits.length / ends.length, JSON.stringify(shots)).toBeGreaterThanOrEqual(0.9);
    // The server's evidence behind each hit: the owner's key still there, with more PTTL than it started with less
    // the time between the reads.
    for (const s of hits) {
      const e = ends.find((x) => x.index > s.index)!;
      const p = e.value.params as Params;
      const start = run.faults.find((x) => x.index === s.index)!.value.params as { pttlMs: Record<string, number> };
      for (const n of p.droppedOn) expect(p.pttlAfterMs[n]).toBeGreaterThan(start.pttlMs[n] - p.readsApartMs!);
    }
    expect(run.leftovers).toEqual([]);
  });
});
