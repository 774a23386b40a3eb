import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import { cellPromise, promiseText, runPromise } from './cell-promise.ts';

const withPromise = (promise: Record<string, unknown>) =>
  ({ checkers: { promise: { valid: true, ...promise } } }) as unknown as Pick<RunResults, 'checkers'>;

describe('runPromise', () => {
  it('counts broken, outlived (own clock included) and unknown overlaps', () => {
    const r = withPromise({
      holds: 40,
      unknownHolds: 0,
      counts: { broke: 2, outlived: 3, 'own-clock': 1, unknown: 0 },
    });
    expect(runPromise(r)).toEqual({ broken: 2, outlived: 4, unknown: 0, known: true });
    expect(promiseText(runPromise(r))).toBe('2 broken');
  });

  it('is not known when no hold had a known promise, and says why', () => {
    const r = withPromise({
      holds: 12,
      unknownHolds: 12,
      counts: { broke: 0, outlived: 0, 'own-clock': 0, unknown: 0 },
      unknownWhy: 'the test record has no strategy.lease',
    });
    expect(promiseText(runPromise(r))).toBe('unknown: the test record has no strategy.lease');
  });

  it('names unknown overlaps beside the broken count', () => {
    const r = withPromise({
      holds: 12,
      unknownHolds: 3,
      counts: { broke: 0, outlived: 1, 'own-clock': 0, unknown: 2 },
      unknownWhy: 'its lease is renewed outside the history',
    });
    expect(promiseText(runPromise(r))).toBe('0 broken · 2 unknown (its lease is renewed outside the history)');
  });

  it('is absent for results from before the checker, or where it threw', () => {
    expect(runPromise({ checkers: {} as RunResults['checkers'] })).toBeUndefined();
    expect(runPromise(withPromise({ valid: 'unknown', error: 'boom' }))).toBeUndefined();
    expect(promiseText(undefined)).toBe('not measured');
  });
});

describe('cellPromise', () => {
  it('sums the runs that measured it, known when any run knew its promises', () => {
    const p = cellPromise([
      { promise: { broken: 1, outlived: 0, unknown: 0, known: true } },
      {},
      { promise: { broken: 0, outlived: 2, unknown: 1, known: true, why: 'ambiguous start' } },
    ]);
    expect(p).toEqual({ broken: 1, outlived: 2, unknown: 1, known: true, why: 'ambiguous start', runs: 2 });
  });

  it('is absent when no run measured it', () => {
    expect(cellPromise([{}, {}])).toBeUndefined();
  });
});
