import { describe, expect, it } from 'vitest';
import type { CellRun } from './matrix-cell.ts';
import { cellObservation, matches, needsAnotherRun, judgeRun, type RunEvidence } from './cell-outcome.ts';

const evidence = (e: Partial<RunEvidence>): RunEvidence => ({
  valid: true,
  lostUpdates: 0,
  staleWritesRejected: 0,
  fencing: false,
  fault: 'pause-holder',
  faultHits: undefined,
  failing: [],
  ...e,
});
const run = (seen: CellRun['seen'], conclusive: boolean): CellRun => ({
  seed: 1,
  runDir: '/r',
  verdict: 'VALID',
  lostUpdates: seen === 'lost' ? 2 : 0,
  staleWritesRejected: 0,
  seen,
  conclusive,
});

describe('reading one run', () => {
  it('uses the whole verdict: INVALID without a lost update is not "safe"', () => {
    expect(judgeRun(evidence({ valid: false, lostUpdates: 0, failing: ['mutual-exclusion'] }))).toEqual({
      seen: 'invalid',
      conclusive: true,
      why: 'INVALID by mutual-exclusion without a lost update',
    });
    expect(judgeRun(evidence({ valid: false, lostUpdates: 3 }))).toEqual({ seen: 'lost', conclusive: true });
    expect(judgeRun(evidence({ valid: true }))).toEqual({ seen: 'safe', conclusive: true });
  });

  it('an unknown verdict is inconclusive', () => {
    expect(judgeRun(evidence({ valid: 'unknown' }))).toEqual({
      seen: 'unknown',
      conclusive: false,
      why: 'the verdict was unknown',
    });
  });

  it('a fault that never hit makes a clean run inconclusive, but never a counterexample', () => {
    expect(judgeRun(evidence({ valid: true, faultHits: 0 }))).toMatchObject({
      seen: 'safe',
      conclusive: false,
      why: 'no pause-holder story completed',
    });
    // A lost update or an INVALID verdict is the lock breaking, whether or not the aimed fault landed.
    expect(judgeRun(evidence({ valid: false, lostUpdates: 4, faultHits: 0 }))).toEqual({
      seen: 'lost',
      conclusive: true,
      why: 'no pause-holder story completed, but a counterexample counts all the same',
    });
    expect(judgeRun(evidence({ valid: false, failing: ['mutual-exclusion'], faultHits: 0 }))).toMatchObject({
      seen: 'invalid',
      conclusive: true,
    });
    expect(judgeRun(evidence({ valid: 'unknown', faultHits: 0 }))).toMatchObject({
      seen: 'unknown',
      conclusive: false,
    });
    expect(judgeRun(evidence({ valid: true, faultHits: 2 }))).toMatchObject({ conclusive: true });
    // Not known (an old results.json carries no count) is not held against the run; no fault has no hits to count.
    expect(judgeRun(evidence({ valid: true, faultHits: undefined }))).toMatchObject({ conclusive: true });
    expect(judgeRun(evidence({ valid: false, lostUpdates: 1, fault: null, faultHits: 0 }))).toMatchObject({
      seen: 'lost',
      conclusive: true,
    });
  });

  it('a safe-expecting cell with one lost-update run whose fault missed ends "lost" (a mismatch), never "safe"', () => {
    // Literal run results as matrix.ts reads them: two clean runs that hit, one that lost updates and missed.
    const readings = [
      evidence({ valid: true, faultHits: 3 }),
      evidence({ valid: false, lostUpdates: 2, failing: ['lost-updates'], faultHits: 0 }),
      evidence({ valid: true, faultHits: 1 }),
    ].map((e, i): CellRun => ({ ...run('safe', true), seed: i, lostUpdates: e.lostUpdates, ...judgeRun(e) }));
    expect(needsAnotherRun(readings.slice(0, 2), 2, 2)).toBe(false);
    const seen = cellObservation(readings, 2);
    expect(seen).toBe('lost');
    expect(matches('safe', seen)).toBe(false);
  });

  it('a fenced safe run that refused no stale write did not test the fence', () => {
    expect(judgeRun(evidence({ fencing: true, staleWritesRejected: 0 }))).toMatchObject({
      seen: 'safe',
      conclusive: false,
      why: expect.stringContaining('fence was not exercised'),
    });
    expect(judgeRun(evidence({ fencing: true, staleWritesRejected: 5 }))).toEqual({ seen: 'safe', conclusive: true });
  });
});

describe('how many runs a measured cell gets', () => {
  it('the same number for every cell, then one more per inconclusive run up to the cap', () => {
    expect(needsAnotherRun([], 2, 2)).toBe(true);
    expect(needsAnotherRun([run('lost', true)], 2, 2)).toBe(true); // a lost update does not cut the cell short
    expect(needsAnotherRun([run('lost', true), run('safe', true)], 2, 2)).toBe(false);
    expect(needsAnotherRun([run('safe', true), run('unknown', false)], 2, 2)).toBe(true);
    expect(
      needsAnotherRun([run('safe', true), run('unknown', false), run('unknown', false), run('safe', false)], 2, 2),
    ).toBe(false);
  });

  it('a failed run ends the cell', () => {
    expect(needsAnotherRun([run('failed', false)], 2, 2)).toBe(false);
  });
});

describe('what a cell shows', () => {
  it('one conclusive lost update settles "lost"; "safe" needs every wanted run conclusive', () => {
    expect(cellObservation([run('safe', true), run('lost', true)], 2)).toBe('lost');
    expect(cellObservation([run('safe', true), run('safe', true)], 2)).toBe('safe');
    expect(
      cellObservation([run('safe', true), run('unknown', false), run('safe', false), run('unknown', false)], 2),
    ).toBe('unknown');
    expect(cellObservation([run('invalid', true)], 1)).toBe('invalid');
    expect(cellObservation([run('safe', true), run('failed', false)], 2)).toBe('failed');
  });

  it('matches the oracle: INVALID counts as the lock breaking, never as safe', () => {
    expect(matches('lost', 'lost')).toBe(true);
    expect(matches('lost', 'invalid')).toBe(true);
    expect(matches('safe', 'invalid')).toBe(false);
    expect(matches('lost', 'safe')).toBe(false);
    expect(matches('safe', 'unknown')).toBe(false);
    expect(matches('safe', 'failed')).toBe(false);
    expect(matches('refuse', 'refuse')).toBe(true);
    expect(matches('refuse', 'accepted')).toBe(false);
  });

  it("'may lose' (a double grant only some interleavings show) is matched by a lost update and by a clean run, not by no verdict", () => {
    for (const seen of ['lost', 'invalid', 'safe'] as const) expect(matches('may-lose', seen)).toBe(true);
    for (const seen of ['unknown', 'failed', 'starved'] as const) expect(matches('may-lose', seen)).toBe(false);
  });
});

describe('starvation (one client wrote every write)', () => {
  const starvedRun = () =>
    judgeRun(
      evidence({
        valid: 'unknown',
        fault: null,
        starvation: 'starvation: client 3 committed all 12 writes, the other 4 client(s) none',
      }),
    );

  it('is read as starved, not as evidence of safety, and says which client wrote how much', () => {
    expect(starvedRun()).toEqual({
      seen: 'starved',
      conclusive: false,
      why: 'the verdict was unknown (starvation: client 3 committed all 12 writes, the other 4 client(s) none)',
    });
  });

  it('a lost update outranks it: a starving run that lost an update is a counterexample', () => {
    expect(judgeRun(evidence({ valid: false, lostUpdates: 1, starvation: 'starvation: …' })).seen).toBe('lost');
  });

  it('a cell is starved only when every run starved; one other unknown run makes it unknown', () => {
    const starved: CellRun = { ...run('starved', false) };
    expect(cellObservation([starved, starved, starved], 1)).toBe('starved');
    expect(cellObservation([starved, run('unknown', false), starved], 1)).toBe('unknown');
    expect(cellObservation([starved, run('safe', true)], 1)).toBe('safe');
  });

  it('matches a cell that allows it (as does a VALID run); a plain safe cell that starved is a mismatch', () => {
    expect(matches('safe-may-starve', 'starved')).toBe(true);
    // A run with two writers is VALID: the same cell, decided the same way (seed 201 of a real matrix did this).
    expect(matches('safe-may-starve', 'safe')).toBe(true);
    expect(matches('safe-may-starve', 'lost')).toBe(false);
    expect(matches('safe', 'starved')).toBe(false);
    expect(matches('safe-may-starve', 'unknown')).toBe(false);
  });
});
