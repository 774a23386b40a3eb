import { describe, expect, it } from 'vitest';
import type { Op } from '../../history/op.ts';
import type { NemesisValue } from '../../history/bank.ts';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis, starts } from '../../test/support/nemesis-test-kit.ts';

/**
 * reply-loss on a real Redis: the holder's release reaches the server, the reply is dropped by the client's own
 * proxy, and the server is read right after the drop. About one shot a second (the release's 500 ms command timeout
 * ends each), 10 or more in 30 s.
 */

type Params = Record<string, unknown> & { droppedOn: string[]; valuesAfter: Record<string, string> };

describe('reply-loss', () => {
  it('--lock=redis: ≥ 9 of 10 shots are committed but unacknowledged; one without server effect is a miss', async () => {
    const run = await runNemesis(['--lock=redis', '--nemesis=reply-loss', '--nemesis-interval=500', '--time-limit=30']);
    const ends = run.faults.filter((o) => o.f === 'reply-loss' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBeGreaterThanOrEqual(10);
    // Committed, as the end record reads it: on every node whose reply was dropped the owner's value was gone, or
    // another owner's (the next holder already took the freed key), within the key's PTTL. (The CI run of
    // 2026-12-06 counted only "gone" here: 17 of 23, while the other 6 had the next holder's value — the same
    // evidence of a release carried out.)
    const startOf = (end: (typeof ends)[number]) =>
      starts(run, 'reply-loss')
        .filter((s) => s.index < end.index)
        .at(-1)!;
    const ownerAt = (end: (typeof ends)[number]) =>
      (startOf(end).value.params as Params).ownerValues as Record<string, string>;
    const committed = ends.filter((e) => {
      const p = e.value.params as Params;
      const owner = ownerAt(e);
      return p.hit === true && p.droppedOn.length > 0 && p.droppedOn.every((n) => p.valuesAfter[n] !== owner[n]);
    });
    expect(committed.length, run.summary).toBe(ends.filter((e) => (e.value.params as Params).hit === true).length);
    // The judge's whole story (dropped → committed → unacknowledged) in ≥ 9 of 10 shots, and never a hit the end
    // record did not see committed.
    const shots = faultHits(run.ops)['reply-loss'].shots;
    const hits = shots.filter((s) => s.hit).length;
    expect(hits / ends.length, JSON.stringify(shots)).toBeGreaterThanOrEqual(0.9);
    expect(hits, JSON.stringify(shots)).toBeLessThanOrEqual(committed.length);
    const [start] = starts(run, 'reply-loss');
    expect(start.value.targets[0]).toMatch(/^client p\d+ → redis\[0\]$/);
    expect(run.leftovers).toEqual([]);

    // The same history with one hit's server read showing the owner's value still there (the release never took
    // effect): that shot is judged a miss at `committed`.
    const judgedHit = new Set(shots.filter((s) => s.hit).map((s) => s.index));
    const hit = committed.find((e) => judgedHit.has(startOf(e).index))!;
    const owner = ownerAt(hit);
    const p = hit.value.params as Params;
    const untouched: Op[] = run.ops.map((o) =>
      o === hit
        ? { ...o, value: { ...(o.value as NemesisValue), params: { ...p, hit: false, valuesAfter: owner } } }
        : o,
    );
    const rejudged = faultHits(untouched)['reply-loss'].shots;
    expect(rejudged.filter((s) => s.hit).length, JSON.stringify(rejudged)).toBe(hits - 1);
    expect(rejudged.some((s) => s.story?.find((x) => x.id === 'committed')?.status === 'missing')).toBe(true);
  });

  it('--lock=etcd: refused before anything boots, it has no Redis release to aim at', async () => {
    await expect(runNemesis(['--lock=etcd', '--nemesis=reply-loss', '--time-limit=6'])).rejects.toThrow(
      /--nemesis=reply-loss cannot act on --lock=etcd: --lock=etcd uses no Redis node/,
    );
  });
});
