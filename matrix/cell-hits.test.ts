import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import { faultHits } from './cell-hits.ts';

const results = (extra: object) => ({ valid: true, lostUpdates: 0, ...extra }) as unknown as RunResults;

describe('faultHits', () => {
  it('reads how often a fault hit from results.json', () => {
    expect(faultHits(results({ faultHits: { 'pause-holder': { fired: 4, hit: 3, shots: [] } } }), 'pause-holder')).toBe(
      3,
    );
    expect(faultHits(results({ faultHits: { clock: { fired: 2, hit: 0, shots: [] } } }), 'clock')).toBe(0);
  });

  it('says "not known" (undefined) when results.json has no count for it, or the fault aims at nothing', () => {
    expect(faultHits(results({}), 'pause-holder')).toBeUndefined();
    expect(
      faultHits(results({ faultHits: { clock: { fired: 2, hit: 1, shots: [] } } }), 'pause-holder'),
    ).toBeUndefined();
    expect(
      faultHits(results({ faultHits: { 'pause-node': { fired: 2, hit: null, shots: [] } } }), 'pause-node'),
    ).toBeUndefined();
  });
});
