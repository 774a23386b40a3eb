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
    // Committed: the key was gone right after the drop (no value read for a node whose reply was dropped).
    const committed = ends.filter((e) => {
      const p = e.value.params as Params;
      return p.hit === true && p.droppedOn.length > 0 && p.droppedOn.every((n) => !(n in p.valuesAfter));
    });
    expect(committed.length / ends.length, run.summary).toBeGreaterThanOrEqual(0.9);
    // The judge agrees: those shots are hits, their story (dropped → committed → unacknowledged) complete.
    const shots = faultHits(run.ops)['reply-loss'].shots;
    expect(shots.filter((s) => s.hit).length, JSON.stringify(shots)).toBeGreaterThanOrEqual(committed.length);
    const [start] = starts(run, 'reply-loss');
    expect(start.value.targets[0]).toMatch(/^client p\d+ → redis\[0\]$/);
    expect(run.leftovers).toEqual([]);

    // The same history with one hit's server read showing the owner's value still there (the release never took
    // effect): that shot is judged a miss at `committed`.
    const hit = committed[0];
    const owner = (
      starts(run, 'reply-loss')
        .filter((s) => s.index < hit.index)
        .at(-1)!.value.params as Params
    ).ownerValues as Record<string, string>;
    const p = hit.value.params as Params;
    const untouched: Op[] = run.ops.map((o) =>
      o === hit
        ? { ...o, value: { ...(o.value as NemesisValue), params: { ...p, hit: false, valuesAfter: owner } } }
        : o,
    );
    const rejudged = faultHits(untouched)['reply-loss'].shots;
    expect(rejudged.filter((s) => s.hit).length, JSON.stringify(rejudged)).toBe(shots.filter((s) => s.hit).length - 1);
    expect(rejudged.some((s) => s.story?.find((x) => x.id === 'committed')?.status === 'missing')).toBe(true);
  });

  it('--lock=etcd: refused before anything boots, it has no Redis release to aim at', async () => {
    await expect(runNemesis(['--lock=etcd', '--nemesis=reply-loss', '--time-limit=6'])).rejects.toThrow(
      /--nemesis=reply-loss cannot act on --lock=etcd: --lock=etcd uses no Redis node/,
    );
  });
});
