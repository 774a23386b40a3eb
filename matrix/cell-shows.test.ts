import { describe, expect, it } from 'vitest';
import { cellShows } from './cell-shows.ts';
import type { CellRun } from './matrix-cell.ts';

const run = (over: Partial<CellRun>): CellRun => ({
  seed: 1,
  runDir: 'redis/1',
  verdict: 'VALID' as CellRun['verdict'],
  lostUpdates: 0,
  staleWritesRejected: 0,
  seen: 'safe',
  conclusive: true,
  ...over,
});

describe('what a measured cell proves', () => {
  it('a lost cell is a counterexample, named by the seeds of the runs that hold it', () => {
    const runs = [run({ seed: 7, seen: 'lost', lostUpdates: 2 }), run({ seed: 8, seen: 'unknown', conclusive: false })];
    expect(cellShows({ fault: 'pause-holder', observed: 'lost', fencing: false, runs })).toBe(
      'counterexample: 2 update(s) lost (seed 7)',
    );
    expect(
      cellShows({ fault: 'clock', observed: 'invalid', fencing: false, runs: [run({ seed: 3, seen: 'invalid' })] }),
    ).toBe('counterexample: INVALID without a lost update (seed 3)');
  });

  it('a safe cell counts only conclusive runs: the stories that completed, the stale writes a fence refused', () => {
    const runs = [
      run({ seed: 4, seen: 'safe', conclusive: false, faultHits: 0, why: 'no pause-holder story completed' }),
      run({ seed: 5, seen: 'safe', faultHits: 2, staleWritesRejected: 3 }),
    ];
    expect(cellShows({ fault: 'pause-holder', observed: 'safe', fencing: true, runs })).toBe(
      'no update lost in 1 run(s) through 2 completed stories of pause-holder, 3 stale write(s) refused: evidence, not proof',
    );
    // A fault without a story counts hits; the no-fault column counts runs.
    expect(cellShows({ fault: 'latency', observed: 'safe', fencing: false, runs: [run({ faultHits: 5 })] })).toBe(
      'no update lost in 1 run(s) through 5 hits of latency: evidence, not proof',
    );
    expect(cellShows({ fault: 'none', observed: 'safe', fencing: false, runs: [run({})] })).toBe(
      'no update lost in 1 run(s) without a fault: evidence, not proof',
    );
  });

  it('an unknown, starved or failed cell shows nothing, and says why from its last run', () => {
    const runs = [run({ seen: 'unknown', conclusive: false, why: 'the verdict was unknown (too few writes)' })];
    expect(cellShows({ fault: 'kill', observed: 'unknown', fencing: false, runs })).toBe(
      'nothing: the verdict was unknown (too few writes)',
    );
    expect(cellShows({ fault: 'kill', observed: 'failed', fencing: false, runs: [] })).toBe('nothing');
    expect(cellShows({ fault: 'kill', observed: 'refuse', fencing: false })).toBe('decided by construction, not run');
  });
});
