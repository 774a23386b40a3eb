import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis } from '../../test/support/nemesis-test-kit.ts';

/**
 * reply-loss-acquire on a real Redis: a client's granted SET NX reaches the server, its reply is dropped by the
 * client's own proxy, and the key is read right after the drop. Each shot lasts until that acquire gives up (the
 * recipe's 500 ms command timeout), about 2–3 s.
 */

type Params = {
  droppedOn: string[];
  valuesAfter: Record<string, string>;
  sent?: string;
  key?: string;
  droppedAt?: number;
};

describe('reply-loss-acquire', () => {
  it('--lock=redis: ≥ 9 of 10 shots are committed but unacknowledged, and the key then blocks every acquirer for its TTL', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=reply-loss-acquire',
      '--nemesis-interval=500',
      '--time-limit=40',
    ]);
    const ends = run.faults.filter((o) => o.f === 'reply-loss-acquire' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBeGreaterThanOrEqual(10);
    const shots = faultHits(run.ops)['reply-loss-acquire'].shots;
    const hits = shots.filter((s) => s.hit);
    expect(hits.length / ends.length, JSON.stringify(shots)).toBeGreaterThanOrEqual(0.9);
    expect(run.leftovers).toEqual([]);

    // The evidence read from the server: on every node whose reply was dropped, the value the SET wrote.
    // A shot's end record is the first after its start (one shot at a time).
    const hitEnds = hits.map((s) => ends.find((e) => e.index > s.index)!);
    for (const e of hitEnds) {
      const p = e.value.params as Params;
      expect(p.sent).toMatch(/./);
      for (const n of p.droppedOn) expect(p.valuesAfter[n]).toBe(p.sent);
    }

    // The self-blocking this fault exposes in fencepost's own recipe: nobody holds the orphaned key, and no acquire
    // of its account is granted until its TTL (2 s from the SET, just before the drop) has run out.
    for (const e of hitEnds) {
      const p = e.value.params as Params;
      const account = Number(/account-(\d+)$/.exec(p.key!)![1]);
      const next = run.ops.find(
        (o) =>
          o.f === 'acquire' &&
          o.type === 'ok' &&
          o.time > p.droppedAt! &&
          (o.value as { account?: number } | null)?.account === account,
      );
      if (next) expect((next.time - p.droppedAt!) / 1e6, JSON.stringify(next)).toBeGreaterThan(1_500);
    }
  });
});
