import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import { faultHits } from './fault-hits.ts';

const results = (extra: object) => ({ valid: true, lostUpdates: 0, ...extra }) as unknown as RunResults;

describe('faultHits', () => {
  it('reads how often a fault hit from results.json', () => {
    expect(faultHits(results({ faultCounts: { 'pause-holder': { fired: 4, hit: 3 } } }), 'pause-holder')).toBe(3);
    expect(faultHits(results({ faultCounts: { clock: { fired: 2, hit: 0 } } }), 'clock')).toBe(0);
  });

  it('says "not known" (undefined) when results.json has no count for it', () => {
    expect(faultHits(results({}), 'pause-holder')).toBeUndefined();
    expect(faultHits(results({ faultCounts: { clock: { fired: 2, hit: 1 } } }), 'pause-holder')).toBeUndefined();
  });
});
