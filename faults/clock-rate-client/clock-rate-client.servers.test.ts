import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis } from '../../test/support/nemesis-test-kit.ts';

/**
 * clock-rate-client on a real Redis at r = 0.25 with the harness's watchdog (renewals every TTL/3 = 667 ms of the
 * client's own time, so 2.67 s real: past the 2 s TTL) and a section long enough to renew inside (--think=1500). Every
 * shot must prove the rate in the client's own clock readings; the story must reach "the renewal arrived late".
 */

type End = { monoSlope?: number; wallSlope?: number; reads: number; monoDriftMs?: number };

describe('clock-rate-client', () => {
  it('--lock=redis --watchdog --clock-rate=0.25: both client clocks at 0.25 ± 5 % in ≥ 9 of 10 shots; renewals late', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=clock-rate-client',
      '--clock-rate=0.25',
      '--watchdog',
      '--think=1500',
      '--nemesis-interval=1500',
      '--time-limit=30',
    ]);
    const ends = run.faults.filter((o) => o.f === 'clock-rate-client' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBeGreaterThanOrEqual(3);
    const params = ends.map((e) => e.value.params as End);
    const close = (x: number | undefined) => x !== undefined && Math.abs(x / 0.25 - 1) <= 0.05;
    const proven = params.filter((p) => p.reads > 0 && close(p.monoSlope) && close(p.wallSlope));
    expect(proven.length / ends.length, JSON.stringify(params)).toBeGreaterThanOrEqual(0.9);
    // The slowed clocks stay behind after each shot: the history is in real time only because the harness maps them.
    for (const p of params) expect(p.monoDriftMs, JSON.stringify(p)).toBeLessThan(0);
    const shots = faultHits(run.ops)['clock-rate-client'].shots;
    const late = shots.filter((s) => s.story?.find((x) => x.id === 'renewal-late')?.status === 'done');
    expect(late.length, JSON.stringify(shots)).toBeGreaterThanOrEqual(1);
    expect(run.leftovers).toEqual([]);
  });
});
