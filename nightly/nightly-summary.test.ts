import { describe, expect, it } from 'vitest';
import { promiseBrief } from './nightly-summary.ts';

const p = (broken: number, unknown = 0, known = true) => ({ broken, outlived: 2, unknown, known, runs: 1 });

describe("the summary's broke-its-promise column", () => {
  it('gives the count, flags a broken promise where the oracle expects it kept, and adds the unknown ones', () => {
    expect(promiseBrief(p(0), 'kept')).toBe('0');
    expect(promiseBrief(p(2), 'kept')).toBe('2 (expected 0)');
    expect(promiseBrief(p(2), 'may-break')).toBe('2');
    expect(promiseBrief(p(0, 3), 'kept')).toBe('0 (+3 unknown)');
  });

  it('says unknown when no run knew the lease, and – for results from before the checker', () => {
    expect(promiseBrief(p(0, 0, false), 'kept')).toBe('unknown');
    expect(promiseBrief(undefined, undefined)).toBe('–');
  });
});
