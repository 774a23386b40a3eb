import { describe, expect, it } from 'vitest';
import { matrixPlan } from './matrix.ts';
import { NIGHTLY_LIBRARY_SAMPLE } from './nightly-library-sample.ts';
import { nightlyPlan } from './nightly-plan.ts';

describe("the nightly's sample of the npm libraries' rows", () => {
  it("runs each library row's listed cells, every other row whole, and keeps the plan numbered in order", () => {
    const night = nightlyPlan([]);
    for (const [lock, ids] of Object.entries(NIGHTLY_LIBRARY_SAMPLE))
      expect(night.filter((p) => p.lock === lock).map((p) => p.columnId)).toEqual(
        matrixPlan('all')
          .filter((p) => p.lock === lock && ids.includes(p.col.id))
          .map((p) => p.col.id),
      );
    const whole = matrixPlan('all').filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE));
    expect(night.filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE))).toHaveLength(whole.length);
    expect(night.map((p) => p.index)).toEqual(night.map((_, i) => i));
  });

  it('every listed cell exists, and is measured (a sample of cells decided without a run would test nothing)', () => {
    const night = nightlyPlan([]);
    for (const [lock, ids] of Object.entries(NIGHTLY_LIBRARY_SAMPLE))
      for (const id of ids) {
        const cell = night.find((p) => p.lock === lock && p.columnId === id);
        expect(cell?.oracle.decided, `${lock} × ${id}`).toBe('measured');
      }
  });

  it("keeps a library cell a user's expectation names, sampled or not", () => {
    const night = nightlyPlan([
      { lock: 'redlock-v4', fault: 'clock', fencing: false, expect: 'lost', from: 'fencepost.expectations.json:3' },
    ]);
    expect(night.find((p) => p.lock === 'redlock-v4' && p.columnId === 'clock')).toMatchObject({
      from: 'fencepost.expectations.json:3',
    });
  });
});
