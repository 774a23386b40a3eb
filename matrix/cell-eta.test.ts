import { describe, expect, it } from 'vitest';
import { CellProgress, leftWords, remainingMs } from './cell-eta.ts';

describe('the ETA on --lock=all and nightly cell lines', () => {
  it('is the cells left at the mean time of those done, shared by the parallel workers', () => {
    expect(remainingMs([], 167)).toBeNull();
    // 11 cells in 100 s: 156 left at 9.09 s each.
    expect(Math.round(remainingMs(Array<number>(11).fill(100_000 / 11), 167)!)).toBe(1_418_182);
    expect(remainingMs([30_000, 10_000], 10, 2)).toBe(80_000);
    // One cell left: one worker runs it, however many there are.
    expect(remainingMs([20_000, 20_000], 3, 4)).toBe(20_000);
    expect(remainingMs([5_000], 1)).toBe(0);
  });

  it('says it in whole minutes, rounded up', () => {
    expect(leftWords(59_000)).toBe('under a minute left');
    expect(leftWords(1_418_182)).toBe('about 24 min left');
    expect(leftWords(3_900_000)).toBe('about 1 h 5 min left');
  });

  it("ends each finished cell's line with how many are done and how long the rest should take", () => {
    const progress = new CellProgress(4, 2);
    expect(progress.finished(40_000)).toBe('1/4 done, about 1 min left');
    expect(progress.finished(20_000)).toBe('2/4 done, under a minute left');
    expect(progress.finished(30_000)).toBe('3/4 done, under a minute left');
    expect(progress.finished(30_000)).toBe('4/4 done');
  });
});
