import { describe, expect, it } from 'vitest';
import { clockData } from './chart-data.ts';
import type { FaultWindow } from '../history/fault-windows.ts';

function window(
  f: string,
  startMs: number,
  endMs: number,
  targets: string[],
  params: Record<string, unknown>,
): FaultWindow {
  return {
    f,
    start: startMs * 1e6,
    end: endMs * 1e6,
    startMs,
    endMs,
    targets,
    params,
    processes: [],
    pids: [],
    endParams: {},
  };
}

describe('clockData: which faults are drawn as clock offsets', () => {
  it('draws a clock fault that recorded no offset as a note (the fault itself declares that it moves clocks)', () => {
    const c = clockData([window('clock', 1000, 2000, ['redis[0]'], {})], 3000)!;
    expect(c).not.toBeNull();
    expect(c.notes).toEqual(['clock at 1.00 s on redis[0]: no offsetMs recorded, not drawn.']);
  });

  it('draws a strobe as a square wave from its recorded period', () => {
    const strobe = window('clock-strobe', 1000, 1400, ['client-0'], { offsetMs: 500, periodMs: 100, startsHigh: true });
    const c = clockData([strobe], 2000)!;
    expect(c.x).toEqual([0, 1, 1.1, 1.2, 1.3, 1.4, 2]);
    expect(c.series).toEqual([{ label: 'client-0 (ms)', values: [0, 500, 0, 500, 0, 0, 0] }]);
  });

  it('has nothing to draw for faults that leave clocks alone', () => {
    expect(
      clockData([window('pause-holder', 1000, 2000, ['client p1 (pid 42)'], { durationMs: 1000 })], 3000),
    ).toBeNull();
  });
});
