import { describe, expect, it } from 'vitest';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * clock-rate-client on a real Redis at r = 0.25 with the harness's watchdog, scripted: A holds the lock and has read
 * when its own clocks slow to a quarter; its watchdog's next renewal (TTL/3 = 667 ms of its own time, so 2.67 s real:
 * past the 2 s TTL) comes late and fails; B is granted and reads; the rate is put back; A, told it lost the lock,
 * skips its write. The slope of A's own clock readings over the whole hold proves the rate. The 10-shot measurement
 * of issue 47 is a command in docs/faults.md, not a suite test.
 */

type End = { monoSlope?: number; wallSlope?: number; reads: number; monoDriftMs?: number; probeMs?: number };

describe('clock-rate-client', () => {
  it('--lock=redis --watchdog --clock-rate=0.25, scripted: both client clocks at 0.25 ± 5 %; the renewal late, the watchdog saves A (VALID)', async () => {
    const run = await scriptedRun(
      {
        name: 'clock-rate-client',
        steps: [
          'A acquire',
          'A read',
          'clock-rate-client A',
          'wait A renew',
          'B acquire',
          'B read',
          'heal clock-rate-client A',
          'A write',
          'B write',
          'A release',
          'B release',
        ],
        options: { watchdog: true },
      },
      ['--lock=redis', '--clock-rate=0.25'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const end = run.faults.find((o) => o.f === 'clock-rate-client' && o.value.phase === 'end')!;
    const p = end.value.params as End;
    const close = (x: number | undefined) => x !== undefined && Math.abs(x / 0.25 - 1) <= 0.05;
    expect(p.reads, JSON.stringify(p)).toBeGreaterThan(0);
    expect(close(p.monoSlope) && close(p.wallSlope), JSON.stringify(p)).toBe(true);
    // The slowed clocks stay behind after the shot: the history is in real time only because the harness maps them.
    expect(p.monoDriftMs, JSON.stringify(p)).toBeLessThan(0);
    const [shot] = run.outcome.results.faultHits['clock-rate-client'].shots;
    expect(
      shot.story?.slice(0, 4).map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done', 'held']);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
