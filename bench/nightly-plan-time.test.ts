import { describe, expect, it } from 'vitest';
import { nightlyPlan } from '../nightly/nightly-plan.ts';
import type { NightlyCell, NightlyResult } from '../nightly/nightly-result.ts';
import { cellTimes, makespan, measuredCells, planGoals, planTime, scaledMs, timeLimitOf } from './nightly-plan-time.ts';

const nightCell = (lock: string, fault: string, wallMs: number | undefined, runs = 1): NightlyCell => ({
  index: 0,
  from: 'oracle',
  lock,
  fault,
  fencing: false,
  table: 'faults',
  runDir: '',
  expected: 'lost',
  observed: 'lost',
  matched: true,
  lostUpdates: 1,
  staleWritesRejected: 0,
  acquireP50: 1,
  acquireP99: 1,
  decided: 'measured',
  runs: Array.from({ length: runs }, (_, i) => ({
    seed: i,
    runDir: '',
    verdict: 'INVALID',
    lostUpdates: 1,
    staleWritesRejected: 0,
    seen: 'lost',
    conclusive: true,
  })),
  ...(wallMs !== undefined ? { wallMs } : {}),
});
const night = (startedAt: string, settings: string[], cells: NightlyCell[]): NightlyResult => ({
  version: 1,
  seed: 1,
  shard: null,
  settings,
  command: '',
  startedAt,
  wallMs: 0,
  expectationsFile: null,
  cells,
});

describe('a cell at another --time-limit', () => {
  it('keeps what is not the clients’ time and gives each run the new limit', () => {
    // 2 runs of 10 s in 32 s: 12 s of boot, teardown and checking; at 20 s a run: 12 + 40 s.
    expect(scaledMs({ wallMs: 32_000, runs: 2, timeLimitS: 10 }, 20)).toBe(52_000);
    expect(scaledMs({ wallMs: 32_000, runs: 2, timeLimitS: 10 }, 10)).toBe(32_000);
    // A cell that ended early (every client died) has no negative overhead.
    expect(scaledMs({ wallMs: 3000, runs: 1, timeLimitS: 10 }, 5)).toBe(5000);
    // Runs --stop-on-lost-update ended early: their own seconds are client time, capped by the new limit.
    // 20 s for a 10 s run and one stopped at 4 s: 6 s of overhead; at 20 s a run 6 + 20 + 4, at 3 s 6 + 3 + 3.
    expect(scaledMs({ wallMs: 20_000, runs: 2, timeLimitS: 10, stoppedAtS: [4] }, 10)).toBe(20_000);
    expect(scaledMs({ wallMs: 20_000, runs: 2, timeLimitS: 10, stoppedAtS: [4] }, 20)).toBe(30_000);
    expect(scaledMs({ wallMs: 20_000, runs: 2, timeLimitS: 10, stoppedAtS: [4] }, 3)).toBe(12_000);
  });

  it('reads the night’s limit from its settings, else the nightly default of 10 s', () => {
    expect(timeLimitOf(['--time-limit=30', '--runs=1'])).toBe(30);
    expect(timeLimitOf([])).toBe(10);
  });
});

describe('measured cells of stored nights', () => {
  it('keeps the latest night’s time of a cell, with its runs and limit; a cell without wallMs gives none', () => {
    const m = measuredCells([
      night('2026-12-02T00:00:00Z', ['--time-limit=20'], [nightCell('redis', 'pause-holder', 40_000, 2)]),
      night(
        '2026-12-01T00:00:00Z',
        [],
        [nightCell('redis', 'pause-holder', 99_000), nightCell('etcd', 'kill', 15_000)],
      ),
      night('2026-12-03T00:00:00Z', [], [nightCell('zookeeper', 'kill', undefined)]),
    ]);
    expect(Object.fromEntries(m)).toEqual({
      'redis|pause-holder|plain': { wallMs: 40_000, runs: 2, timeLimitS: 20 },
      'etcd|kill|plain': { wallMs: 15_000, runs: 1, timeLimitS: 10 },
    });
  });
});

describe('expected wall time of a plan', () => {
  const plan = nightlyPlan([], 'faults');
  const measured = plan.filter((p) => p.oracle.decided === 'measured');

  it('sums measured cells, gives the unmeasured the median, and counts nothing for cells not run', () => {
    // Three cells measured at 12, 14 and 30 s (10 s runs); every other measured cell gets the median, 14 s.
    const m = measuredCells([
      night(
        '2026-12-02T00:00:00Z',
        [],
        measured.slice(0, 3).map((p, i) => nightCell(p.lock, p.fault, [12_000, 14_000, 30_000][i])),
      ),
    ]);
    const times = cellTimes(plan, m, 10)!;
    expect(times.filter((t) => t.from === 'measured').map((t) => t.ms)).toEqual([12_000, 14_000, 30_000]);
    expect(times.filter((t) => t.from === 'median').every((t) => t.ms === 14_000)).toBe(true);
    expect(times.filter((t) => t.from === 'not run').every((t) => t.ms === 0)).toBe(true);
    const whole = planTime(plan, times, null, 10);
    expect(whole).toEqual({
      shard: null,
      cells: measured.length,
      estimated: measured.length - 3,
      ms: 56_000 + (measured.length - 3) * 14_000,
    });
    // Shards split the measured cells; their times add up to the whole.
    const shards = [1, 2, 3].map((index) => planTime(plan, times, { index, count: 3 }, 10));
    expect(shards.reduce((s, p) => s + p.ms, 0)).toBe(whole.ms);
    expect(shards.reduce((s, p) => s + p.cells, 0)).toBe(whole.cells);
    // Two workers (nightly --parallel=2): the cells in order, each worker taking the next when free.
    expect(planTime(plan, times, null, 10, 2).ms).toBe(
      makespan(
        times.filter((t) => t.from !== 'not run').map((t) => t.ms),
        2,
      ),
    );
  });

  it('--parallel workers take the cells in order, each the next one when its last ends', () => {
    expect(makespan([10, 10, 10, 10], 1)).toBe(40);
    expect(makespan([10, 10, 10, 10], 2)).toBe(20);
    expect(makespan([10, 30, 10], 2)).toBe(30);
    expect(makespan([5, 5, 30], 2)).toBe(35);
    expect(makespan([], 2)).toBe(0);
  });

  it('is unknown when no stored night measured any cell', () => {
    expect(cellTimes(plan, new Map(), 10)).toBeNull();
  });
});

describe('nightly plan goals', () => {
  const part = (index: number, ms: number, estimated = 0) => ({
    shard: { index, count: 3 },
    ms,
    cells: 10,
    estimated,
  });
  const whole = (ms: number, estimated = 0) => ({ shard: null, ms, cells: 30, estimated });

  it('judge the whole plan against 15 min and the slowest of 3 shards against 6 min', () => {
    const goals = planGoals(
      '--matrix=all --time-limit=10',
      whole(14 * 60_000),
      [part(1, 300_000), part(2, 361_000), part(3, 1)],
      true,
    );
    expect(goals).toEqual([
      {
        what: 'nightly --matrix=all --time-limit=10, one machine',
        goal: '≤ 15 min',
        measured: '14.0 min expected',
        met: true,
      },
      {
        what: 'nightly --matrix=all --time-limit=10, slowest of 3 shards',
        goal: '≤ 6 min',
        measured: 'shard 2: 6.0 min expected',
        met: false,
      },
    ]);
  });

  it('are skipped, saying why, when a cell’s time is the median or the plan is not the goal’s', () => {
    const guessed = planGoals('s', whole(60_000, 4), [part(1, 1)], true);
    expect(guessed.map((g) => g.met)).toEqual(['skipped', 'skipped']);
    expect(guessed[0].why).toBe(
      '4 of 30 cells measured by no stored night (their time is the median): give --from a full night',
    );
    const other = planGoals('s', whole(60_000), null, false);
    expect(other).toHaveLength(1);
    expect(other[0]).toMatchObject({ met: 'skipped', why: 'the goal is for --matrix=all --time-limit=10' });
  });
});
