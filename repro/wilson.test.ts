import { describe, expect, it } from 'vitest';
import { intervalsOverlap, rateText, wilson } from './wilson.ts';

describe('the Wilson 95 % interval of a reproduction rate', () => {
  it.each([
    [7, 10, 0.397, 0.892],
    [0, 10, 0, 0.278],
    [10, 10, 0.722, 1],
    [4, 5, 0.376, 0.964],
    [1, 20, 0.009, 0.236],
  ])('%i/%i → %f–%f', (k, n, low, high) => {
    const r = wilson(k, n);
    expect(r.low).toBeCloseTo(low, 3);
    expect(r.high).toBeCloseTo(high, 3);
  });

  it('says nothing (0–100 %) of no runs', () => {
    expect(wilson(0, 0)).toEqual({ k: 0, n: 0, low: 0, high: 1 });
  });

  it('reads as the replay prints it', () => {
    expect(rateText(wilson(10, 10))).toBe('fails 10/10 (Wilson 95 %: 72–100 %)');
    expect(rateText(wilson(0, 10))).toBe('fails 0/10 (Wilson 95 %: 0–28 %)');
  });

  it('tells a rate that fell away from one that held', () => {
    expect(intervalsOverlap(wilson(10, 10), wilson(7, 10))).toBe(true);
    expect(intervalsOverlap(wilson(10, 10), wilson(0, 10))).toBe(false);
  });
});
