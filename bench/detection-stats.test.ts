import { describe, expect, it } from 'vitest';
import {
  detectionGoal,
  detectionSpeedGoal,
  foundWithin,
  summarize,
  timeToFirstAnomalyMs,
  type DetectionCell,
  type DetectionRun,
} from './detection-stats.ts';

const ms = 1e6;
// A nemesis record first (not a client op: not the start), then client ops from 2 ms on.
const ops = [
  { index: 0, time: 1 * ms, process: 'nemesis' as const },
  { index: 1, time: 2 * ms, process: 0 },
  { index: 2, time: 500 * ms, process: 1 },
  { index: 3, time: 900 * ms, process: 0 },
];
const lost = (overwrittenByOpIndex?: number) => ({
  account: 0,
  lost: {} as never,
  overwrittenBy: {} as never,
  ...(overwrittenByOpIndex !== undefined ? { overwrittenByOpIndex } : {}),
});
const overlap = (kind: 'confirmed' | 'suspected', aAt: number, bAt: number) => ({
  account: 0,
  kind,
  a: { process: 0, acquiredAt: aAt, releasedAt: aAt + 1, acquireIndex: 1 },
  b: { process: 1, acquiredAt: bAt, releasedAt: bAt + 1, acquireIndex: 2 },
});

describe('time to first anomaly', () => {
  it('runs from the first client op to the completion of the first erasing write', () => {
    expect(timeToFirstAnomalyMs(ops, { lostUpdateDetails: [lost(3), lost(2)], overlapDetails: [] })).toBe(498);
  });

  it('counts a confirmed overlap from the later acquire, and ignores suspected ones', () => {
    expect(
      timeToFirstAnomalyMs(ops, {
        lostUpdateDetails: [lost(3)],
        overlapDetails: [overlap('confirmed', 100 * ms, 200 * ms)],
      }),
    ).toBe(198);
    expect(
      timeToFirstAnomalyMs(ops, {
        lostUpdateDetails: [lost(3)],
        overlapDetails: [overlap('suspected', 10 * ms, 20 * ms)],
      }),
    ).toBe(898);
  });

  it('is null without an anomaly that has a time', () => {
    expect(timeToFirstAnomalyMs(ops, { lostUpdateDetails: [lost()], overlapDetails: [] })).toBeNull();
    expect(timeToFirstAnomalyMs([], { lostUpdateDetails: [lost(3)], overlapDetails: [] })).toBeNull();
  });
});

const run = (over: Partial<DetectionRun>): DetectionRun => ({
  seed: 1,
  verdict: 'INVALID',
  lostUpdates: 3,
  anomaly: true,
  firstAnomalyMs: 2000,
  fired: 2,
  hits: 1,
  committedWrites: 40,
  unknownReasons: [],
  ...over,
});
const cell = (expect: 'lost' | 'safe', runs: DetectionRun[]): DetectionCell => ({
  cell: 'redis × holder paused',
  expect,
  fault: 'pause-holder',
  runs,
});

describe('detection goal', () => {
  it('is met with 19 of 20 found and a median under 10 s', () => {
    const runs = [
      ...Array.from({ length: 19 }, (_, i) => run({ firstAnomalyMs: 1000 * (i + 1) })),
      run({ anomaly: false, firstAnomalyMs: null, verdict: 'UNKNOWN' }),
    ];
    const s = summarize(cell('lost', runs));
    expect(s).toMatchObject({ runs: 20, found: 19, medianMs: 10_000, p90Ms: 18_000, hitRate: 0.5, falseAlarms: 0 });
    expect(s.within).toEqual([
      { withinS: 2, found: 2, runs: 20 },
      { withinS: 5, found: 5, runs: 20 },
      { withinS: 10, found: 10, runs: 20 },
    ]);
    // 10 s is not under 10 s.
    expect(detectionGoal(cell('lost', runs)).met).toBe(false);
    expect(
      detectionGoal(
        cell(
          'lost',
          runs.map((r) => ({ ...r, firstAnomalyMs: r.firstAnomalyMs && r.firstAnomalyMs / 2 })),
        ),
      ).met,
    ).toBe(true);
  });

  it('says why a cell missed: hit rate, writes, the unknown reasons', () => {
    const g = detectionGoal(
      cell('lost', [
        run({}),
        run({
          anomaly: false,
          firstAnomalyMs: null,
          verdict: 'UNKNOWN',
          hits: 0,
          unknownReasons: ['the targeted fault never hit'],
        }),
      ]),
    );
    expect(g).toMatchObject({ met: false, goal: '≥ 2/2, median < 10 s', measured: '1/2, median 2.0 s, p90 2.0 s' });
    expect(g.why).toBe('fault hit 25 % of 4 shots; median 40 committed writes a run; the targeted fault never hit');
  });

  it('counts false alarms in a safe cell, in runs that were VALID', () => {
    const valid = (seed: number) => run({ seed, anomaly: false, verdict: 'VALID' });
    expect(detectionGoal(cell('safe', [valid(1), valid(2)]))).toMatchObject({
      met: true,
      goal: '0, in ≥ 2/2 VALID runs',
      measured: '0, 2/2 VALID',
    });
    const g = detectionGoal(cell('safe', [run({ seed: 7 })]));
    expect(g).toMatchObject({ met: false, why: 'INVALID with seeds 7' });
  });

  it('"0 false alarms" is not met by runs that decided nothing: ≥ 19 of 20 (all of fewer) must be VALID', () => {
    const unknown = (seed: number) =>
      run({
        seed,
        anomaly: false,
        verdict: 'UNKNOWN',
        unknownReasons: ['no concurrency: only client 2 committed writes'],
      });
    const valid = (seed: number) => run({ seed, anomaly: false, verdict: 'VALID' });
    // All unknown or failed: nothing measured.
    const none = detectionGoal(
      cell('safe', [unknown(1), { ...run({ seed: 2, anomaly: false, verdict: 'FAILED' }), error: 'boot failed' }]),
    );
    expect(none).toMatchObject({ met: false, measured: '0, 0/2 VALID' });
    expect(none.why).toBe(
      'only 0 of 2 runs VALID, 2 needed: 2 unknown/failed decided nothing (no concurrency: only client 2 committed writes; boot failed)',
    );
    expect(detectionGoal(cell('safe', [valid(1), unknown(2)])).met).toBe(false);
    // 20 runs: one unknown is allowed, two are not.
    const twenty = (bad: number) => Array.from({ length: 20 }, (_, i) => (i < bad ? unknown(i) : valid(i)));
    expect(detectionGoal(cell('safe', twenty(1)))).toMatchObject({ met: true, goal: '0, in ≥ 19/20 VALID runs' });
    expect(detectionGoal(cell('safe', twenty(2)))).toMatchObject({ met: false, measured: '0, 18/20 VALID' });
  });
});

describe('found within 2, 5 and 10 s', () => {
  it('counts the runs whose first anomaly came at or before each second, and no run without a time', () => {
    const runs = [
      run({ firstAnomalyMs: 2000 }), // at 2 s exactly: within 2 s
      run({ firstAnomalyMs: 2001 }),
      run({ firstAnomalyMs: 9999 }),
      run({ firstAnomalyMs: 12_000 }),
      run({ firstAnomalyMs: null }), // found, but when is not known
      run({ anomaly: false, firstAnomalyMs: null, verdict: 'UNKNOWN' }),
    ];
    expect(foundWithin(runs).map((w) => [w.withinS, w.found, w.runs])).toEqual([
      [2, 1, 6],
      [5, 2, 6],
      [10, 3, 6],
    ]);
    expect(foundWithin(runs, [1, 60])).toEqual([
      { withinS: 1, found: 0, runs: 6 },
      { withinS: 60, found: 4, runs: 6 },
    ]);
  });

  it('a safe cell has no such row: its anomalies are false alarms', () => {
    expect(summarize(cell('safe', [run({})])).within).toEqual([]);
  });
});

describe('detection speed goal', () => {
  const twenty = (late: number, missed: number) =>
    Array.from({ length: 20 }, (_, i) =>
      i < late
        ? run({ seed: i, firstAnomalyMs: 15_000 })
        : i < late + missed
          ? run({ seed: i, anomaly: false, firstAnomalyMs: null, verdict: 'UNKNOWN' })
          : run({ seed: i, firstAnomalyMs: 1000 + i * 300 }),
    );

  it('is met when 19 of 20 runs found it within 10 s', () => {
    const g = detectionSpeedGoal(cell('lost', twenty(1, 0)), 30);
    expect(g).toMatchObject({
      what: "redis × holder paused: found within 10 s of the run's start",
      goal: '≥ 19/20 runs',
      // 1.3, 1.6, 1.9 s within 2 s; up to 4.9 s (i = 13) within 5 s.
      measured: '2 s 3/20 · 5 s 13/20 · 10 s 19/20',
      met: true,
    });
  });

  it('says how many were late and how many never found it', () => {
    const g = detectionSpeedGoal(cell('lost', twenty(1, 1)), 30);
    expect(g).toMatchObject({ met: false, why: '1 found later (seeds 0), 1 not at all' });
  });

  it('says when the runs were shorter than 10 s', () => {
    expect(detectionSpeedGoal(cell('lost', [run({})]), 8).what).toBe(
      "redis × holder paused: found within 10 s of the run's start (runs of 8 s)",
    );
  });
});
