import { describe, expect, it } from 'vitest';
import { composeVerdict, mergeValid, runChecker } from './compose.ts';
import type { Valid } from './run-results.ts';

describe('composition', () => {
  const cases: [Valid[], Valid][] = [
    [[], true],
    [[true, true], true],
    [[true, 'unknown'], 'unknown'],
    [['unknown', false], false],
    [[false, true], false],
    [[true, 'unknown', false, 'unknown'], false],
  ];
  it.each(cases)('merge %j → %j (false > unknown > true)', (vs, expected) => {
    expect(mergeValid(vs)).toBe(expected);
  });

  it('a checker that throws yields unknown with its error', () => {
    const r = runChecker(() => {
      throw new TypeError('ledger is not iterable');
    });
    expect(r).toEqual({ valid: 'unknown', error: 'TypeError: ledger is not iterable' });
  });

  it('only the deciding checkers make the verdict; a missing one counts as unknown', () => {
    const results = { a: { valid: true as const }, info: { valid: false as const } };
    expect(composeVerdict(results, ['a'])).toBe(true);
    expect(composeVerdict(results, ['a', 'missing'])).toBe('unknown');
  });
});
