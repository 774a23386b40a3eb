import { describe, expect, it } from 'vitest';
import { matrixPlan } from '../matrix/matrix.ts';
import {
  LIBRARY_TURNS,
  libraryRowsOf,
  libraryTurnOf,
  marginTurnOf,
  NIGHTLY_LIBRARY_SAMPLE,
} from './nightly-library-sample.ts';
import { nightlyPlan, type PlannedCell } from './nightly-plan.ts';
import { MARGINS } from '../matrix/margin-oracle.ts';

const notMargin = (p: Pick<PlannedCell, 'table'>) => p.table !== 'margins';

describe("the nightly's sample of the npm libraries' rows", () => {
  it("runs each library row's listed cells, every other row whole, and keeps the plan numbered in order", () => {
    const night = nightlyPlan([]).filter(notMargin);
    for (const [lock, ids] of Object.entries(NIGHTLY_LIBRARY_SAMPLE))
      expect(night.filter((p) => p.lock === lock).map((p) => p.columnId)).toEqual(
        matrixPlan('all')
          .filter((p) => p.lock === lock && ids.includes(p.col.id))
          .map((p) => p.col.id),
      );
    const whole = matrixPlan('all').filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE) && p.col.table !== 'margins');
    expect(night.filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE))).toHaveLength(whole.length);
    const all = nightlyPlan([]);
    expect(all.map((p) => p.index)).toEqual(all.map((_, i) => i));
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

  it('takes turns: each sampled row in exactly one of the turns, a night (its seed) runs its turn’s rows and every other row', () => {
    const turns = Array.from({ length: LIBRARY_TURNS }, (_, t) => libraryRowsOf(t));
    expect(turns.flat().sort()).toEqual(Object.keys(NIGHTLY_LIBRARY_SAMPLE).sort());
    expect(turns.every((rows) => rows.length > 0)).toBe(true);
    const whole = nightlyPlan([], 'all', 'all');
    for (let seed = 41; seed < 41 + LIBRARY_TURNS; seed++) {
      const turn = libraryTurnOf(seed);
      const night = nightlyPlan([], 'all', turn).filter(notMargin);
      const libraryRows = new Set(night.filter((p) => p.lock in NIGHTLY_LIBRARY_SAMPLE).map((p) => p.lock));
      expect([...libraryRows].sort()).toEqual([...turns[turn]].sort());
      expect(night.filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE))).toHaveLength(
        whole.filter((p) => !(p.lock in NIGHTLY_LIBRARY_SAMPLE) && notMargin(p)).length,
      );
    }
    // Consecutive seeds are the three turns: three such nights run every sampled cell.
    expect(new Set([41, 42, 43].map(libraryTurnOf)).size).toBe(LIBRARY_TURNS);
  });

  it("keeps a user's cell on a library row whose turn it is not", () => {
    const off = libraryRowsOf(1)[0];
    const night = nightlyPlan(
      [{ lock: off, fault: 'none', fencing: false, expect: 'safe', from: 'fencepost.expectations.json:2' }],
      'all',
      0,
    );
    expect(night.filter((p) => p.lock === off && notMargin(p)).map((p) => p.from)).toEqual([
      'fencepost.expectations.json:2',
    ]);
  });
});

describe("the nightly's turns of the margin cells", () => {
  it('runs each margin on exactly one turn, at most 3 a night, every one in three nights', () => {
    const byTurn = Array.from({ length: LIBRARY_TURNS }, (_, t) =>
      nightlyPlan([], 'all', t)
        .filter((p) => p.table === 'margins')
        .map((p) => `${p.lock}|${p.columnId}`),
    );
    expect(byTurn.flat().sort()).toEqual(MARGINS.map((m) => `${m.lock}|${m.margin.id}`).sort());
    expect(Math.max(...byTurn.map((t) => t.length))).toBeLessThanOrEqual(3);
    expect(nightlyPlan([], 'all', 'all').filter((p) => p.table === 'margins')).toHaveLength(MARGINS.length);
    expect(MARGINS.map((m) => marginTurnOf(m.lock, m.margin.id))).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2]);
  });
});
