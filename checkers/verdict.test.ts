import { describe, expect, it } from 'vitest';
import { verdictClass, verdictExitCode, verdictWord } from './verdict.ts';

describe('the verdict', () => {
  it('has one word, one class and one exit code per value (Jepsen: 0 valid, 1 invalid, 2 unknown)', () => {
    expect([true, false, 'unknown'].map((v) => verdictWord(v))).toEqual(['VALID', 'INVALID', 'UNKNOWN']);
    expect([true, false, 'unknown'].map((v) => verdictClass(v))).toEqual(['good', 'bad', 'unknown']);
    expect(([true, false, 'unknown'] as const).map((v) => verdictExitCode(v))).toEqual([0, 1, 2]);
  });

  it('reads anything that is not true or false — a missing or damaged result — as unknown, never as VALID', () => {
    for (const v of [undefined, null, 'true', 1, 0, {}, 'none']) {
      expect(verdictWord(v)).toBe('UNKNOWN');
      expect(verdictClass(v)).toBe('unknown');
    }
  });
});
