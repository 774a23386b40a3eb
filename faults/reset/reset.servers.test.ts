import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { starts } from '../../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reset on a real Redis, scripted: A holds the lock and has read when its own proxy resets its connection to Redis
 * (RST). The step ends once A has dialled Redis again (a new connection on its route), or after the heal's bounded
 * wait for it: never a sleep. A's release then goes through on the new connection.
 */
describe('reset', () => {
  it("--lock=redis, scripted: A's connection is reset inside its section, A dials again, and its release still works", async () => {
    const run = await scriptedRun(
      { name: 'reset', steps: ['A acquire', 'A read', 'reset A', 'A write', 'A release'] },
      ['--lock=redis'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const [start] = starts(run, 'reset');
    const s = start.value.params as { resetOn: string[]; resets: Record<string, number> };
    expect(s.resetOn, run.summary).toEqual(['redis[0]']);
    expect(s.resets['redis[0]']).toBeGreaterThan(0);
    const end = run.faults.find((o) => o.f === 'reset' && o.value.phase === 'end')!;
    expect((end.value.params as { reconnectedOn: string[] }).reconnectedOn, run.summary).toEqual(['redis[0]']);
    const [shot] = faultHits(run.ops)['reset'].shots;
    expect(
      shot.story?.map((x) => `${x.id}:${x.status}`),
      shot.evidence,
    ).toEqual(['connection-reset:done', 'reset-seen:done']);
    expect(shot.hit).toBe(true);
    expect(run.record.steps.map((x) => x.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(run.leftovers).toEqual([]);
  }, 20_000);
});
