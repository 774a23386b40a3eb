import { describe, expect, it } from 'vitest';
import { topSelfFrames, type CpuProfile } from './cpu-profile.ts';

const node = (id: number, functionName: string, url = '', lineNumber = 0) => ({
  id,
  callFrame: { functionName, url, lineNumber },
});
// Samples at 1000, 1001, 1003, 1006, 1007 µs; the profile ends at 1010.
const profile: CpuProfile = {
  nodes: [
    node(1, '(root)'),
    node(2, '(idle)'),
    node(3, 'append', 'file:///work/history/journal.ts', 41),
    node(4, 'append', 'file:///work/history/journal.ts', 41), // the same function on another call path
    node(5, '(garbage collector)'),
  ],
  startTime: 1000,
  endTime: 1010,
  samples: [3, 2, 4, 5, 3],
  timeDeltas: [0, 1, 2, 3, 1],
};

describe('top self frames of a CPU profile', () => {
  it('charges each sample the time to the next, sums call paths, and leaves idle out of the busy time', () => {
    const s = topSelfFrames(profile);
    // append: 1 µs (1000→1001) + 3 µs (1003→1006) + 3 µs (1007→end 1010); idle 2 µs; GC 1 µs.
    expect(s.busyMs).toBeCloseTo(0.008);
    expect(s.idleMs).toBeCloseTo(0.002);
    expect(s.frames.map((f) => f.frame)).toEqual(['append history/journal.ts:42', '(garbage collector)']);
    expect(s.frames[0].selfMs).toBeCloseTo(0.007);
    expect(s.frames[0].share).toBeCloseTo(7 / 8);
  });

  it('counts only the samples inside the window, cut at its end', () => {
    const s = topSelfFrames(profile, { fromUs: 1001, toUs: 1008 });
    // idle 1001→1003; append 1003→1006 and 1007→1008 (cut); GC 1006→1007.
    expect(s.idleMs).toBeCloseTo(0.002);
    expect(s.frames).toEqual([
      {
        frame: 'append history/journal.ts:42',
        selfMs: expect.closeTo(0.004) as number,
        share: expect.closeTo(0.8) as number,
      },
      { frame: '(garbage collector)', selfMs: expect.closeTo(0.001) as number, share: expect.closeTo(0.2) as number },
    ]);
  });

  it('keeps the top n', () => {
    expect(topSelfFrames(profile, undefined, 1).frames).toHaveLength(1);
  });
});
