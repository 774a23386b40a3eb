import { describe, expect, it } from 'vitest';
import { faultDurationMs, faultWindow } from './fault-windows.ts';

describe('faultDurationMs', () => {
  it('is how long the fault really lasted when it ended, whatever it planned (a pause the run cut short)', () => {
    // The curator run of issue 33: pause-holder planned 3000 ms (durationMs), and the run's end resumed the holder
    // 1114 ms after the stop. The report said "for 3.0 s".
    const w = faultWindow('pause-holder', 11_264_522_453, 12_378_835_572, ['client p2 (pid 23000)'], {
      durationMs: 3000,
    });
    expect(faultDurationMs(w, 13_000)).toBeCloseTo(1114.3, 1);
  });

  it('falls back to the planned duration, then to the end of the run, for a fault the history never saw end', () => {
    const planned = faultWindow('pause-holder', 1_000_000_000, null, [], { durationMs: 3000 });
    expect(faultDurationMs(planned, 2500)).toBe(3000);
    expect(faultDurationMs(faultWindow('partition', 1_000_000_000, null, [], {}), 2500)).toBe(1500);
  });
});
