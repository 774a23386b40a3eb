import { describe, expect, it } from 'vitest';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * clock-rate-waiters on sql-lease (a lease row its clients stamp and compare on their own clocks) at r = 2, scripted:
 * A holds the row and has read when every other client's clocks run at twice real speed; B's own `now` passes A's
 * lock_until about 1 s later, long before A's 2 s lease ran out in real time, and B takes the row and reads; A writes,
 * then B: A's update is lost. The shot proves the rate by each waiter's own clock readings.
 */

type End = { monoSlopes: Record<string, number>; wallSlopes: Record<string, number>; reads: Record<string, number> };

describe('clock-rate-waiters', () => {
  it("--lock=sql-lease --clock-rate=2, scripted: the waiters' clocks at 2 ± 5 %, B takes A's live lease, A's update lost (exit 1)", async () => {
    const run = await scriptedRun(
      {
        name: 'clock-rate-waiters',
        steps: [
          'A acquire',
          'A read',
          'clock-rate-waiters A',
          'B acquire',
          'B read',
          'heal clock-rate-waiters A',
          'A write',
          'B write',
          'A release',
          'B release',
        ],
      },
      ['--lock=sql-lease', '--clock-rate=2'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const p = run.faults.find((o) => o.f === 'clock-rate-waiters' && o.value.phase === 'end')!.value.params as End;
    const waiters = Object.keys(p.reads);
    expect(waiters.length, JSON.stringify(p)).toBeGreaterThan(0);
    for (const w of waiters) {
      expect(p.reads[w], JSON.stringify(p)).toBeGreaterThan(0);
      expect(Math.abs(p.monoSlopes[w] / 2 - 1), JSON.stringify(p)).toBeLessThanOrEqual(0.05);
      expect(Math.abs(p.wallSlopes[w] / 2 - 1), JSON.stringify(p)).toBeLessThanOrEqual(0.05);
    }
    const [shot] = run.outcome.results.faultHits['clock-rate-waiters'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    expect(run.leftovers).toEqual([]);
  });
});
