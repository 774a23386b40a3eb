import { describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import { faultHits } from './cell-hits.ts';

const results = (extra: object) => ({ valid: true, lostUpdates: 0, ...extra }) as unknown as RunResults;

describe('faultHits', () => {
  it('reads how often a fault hit from results.json, for any fault', () => {
    expect(faultHits(results({ faultHits: { 'pause-holder': { fired: 4, hit: 3, shots: [] } } }), 'pause-holder')).toBe(
      3,
    );
    expect(faultHits(results({ faultHits: { clock: { fired: 2, hit: 0, shots: [] } } }), 'clock')).toBe(0);
    expect(faultHits(results({ faultHits: { partition: { fired: 3, hit: 2, shots: [] } } }), 'partition')).toBe(2);
  });

  it('a fault that never fired is a miss (0), whether its entry says fired 0 or it has none', () => {
    expect(faultHits(results({ faultHits: { partition: { fired: 0, hit: null, shots: [] } } }), 'partition')).toBe(0);
    expect(faultHits(results({ faultHits: { kill: { fired: 0, hit: 0, shots: [] } } }), 'kill')).toBe(0);
    expect(faultHits(results({ faultHits: { clock: { fired: 2, hit: 1, shots: [] } } }), 'pause-holder')).toBe(0);
    expect(faultHits(results({ faultHits: {} }), 'kill')).toBe(0);
  });

  it('says "not known" (undefined) only for runs that cannot say: no counts at all, or an old run\'s hit: null', () => {
    expect(faultHits(results({}), 'pause-holder')).toBeUndefined();
    expect(
      faultHits(results({ faultHits: { 'pause-node': { fired: 2, hit: null, shots: [] } } }), 'pause-node'),
    ).toBeUndefined();
  });
});
