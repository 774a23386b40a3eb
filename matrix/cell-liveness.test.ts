import { describe, expect, it } from 'vitest';
import { compareNights, renderComparison } from '../nightly/nightly-comparison.ts';
import type { NightlyCell, NightlyResult } from '../nightly/nightly-result.ts';
import {
  availabilityText,
  cellLiveness,
  livenessChanges,
  livenessMatches,
  livenessSeen,
  runLiveness,
} from './cell-liveness.ts';

const run = (median: number | null, max: number | null, stall: number, unrecovered = 0) => ({
  recoveryMedianMs: median,
  recoveryMaxMs: max,
  unrecovered,
  longestStallMs: stall,
});

describe("a cell's liveness in the oracle's terms", () => {
  const mayLivelock = { expect: 'may-livelock' as const, reason: 'its retry loop blocks itself' };
  const recovers = { expect: 'recovers' as const, reason: 'our loop releases each try' };

  it('is a livelock when a run stalled past the TTL, else it recovers', () => {
    expect(livenessSeen(run(2400, 6100, 5200))).toBe('livelock');
    // A fault that ended as the clients stopped is unrecovered without anyone stalling: not a livelock by itself.
    expect(livenessSeen(run(150, 300, 0, 1))).toBe('recovers');
    expect(livenessSeen(run(150, 300, 0))).toBe('recovers');
    // No fault ended, no stall: nothing kept the lock away.
    expect(livenessSeen(run(null, null, 0))).toBe('recovers');
    expect(livenessSeen(undefined)).toBeUndefined();
  });

  it('matches "recovers" only on a measured run without a stall; "may livelock" and no expectation always match', () => {
    expect(livenessMatches(mayLivelock, run(2400, 6100, 5200))).toBe(true);
    expect(livenessMatches(mayLivelock, run(150, 300, 0))).toBe(true);
    expect(livenessMatches(recovers, run(150, 300, 0))).toBe(true);
    expect(livenessMatches(recovers, run(150, 300, 2100))).toBe(false);
    expect(livenessMatches(recovers, undefined)).toBe(false);
    expect(livenessMatches(undefined, run(2400, 6100, 5200))).toBe(true);
  });
});

describe('cell liveness', () => {
  it("reads a run's results.json numbers, and nothing from a run from before liveness was measured", () => {
    expect(
      runLiveness({
        liveness: {
          valid: true,
          ttlMs: 2000,
          maxStallMs: null,
          recoveryMs: { median: 412.4, max: 7400.6, unrecovered: 0 },
          longestStallMs: 3100.2,
          stalls: 1,
          starved: [],
          findings: [],
        },
      }),
    ).toEqual(run(412, 7401, 3100));
    expect(runLiveness({})).toBeUndefined();
    expect(runLiveness({ liveness: null })).toBeUndefined();
  });

  it("over a cell's runs: median of the medians, max of the maxima, the longest stall", () => {
    expect(
      cellLiveness([
        { liveness: run(100, 500, 0) },
        { liveness: run(300, 7400, 2500) },
        {},
        { liveness: run(200, 900, 0) },
      ]),
    ).toEqual({
      ...run(200, 7400, 2500),
      runs: 3,
    });
    expect(cellLiveness([{}])).toBeUndefined();
  });

  it('says availability beside safety', () => {
    expect(availabilityText(run(1200, 7400, 3100))).toBe(
      'unavailable up to 7.4 s after each fault (median 1.2 s); longest stall 3.1 s',
    );
    expect(availabilityText(run(null, null, 0))).toBe('no stall');
    expect(availabilityText(run(40, 60, 0, 2))).toBe(
      'unavailable up to 60 ms after each fault (median 40 ms); 2 faults never recovered from; no stall',
    );
  });

  it('flags a change beyond 1.5× and 1 s, either way, and nothing inside it', () => {
    expect(livenessChanges(run(100, 2000, 0), run(100, 7400, 0))).toEqual(['recovery max rose 2.0 s → 7.4 s']);
    expect(livenessChanges(run(100, 7400, 9000), run(100, 2000, 0))).toEqual([
      'recovery max fell 7.4 s → 2.0 s',
      'longest stall fell 9.0 s → 0 ms',
    ]);
    // 1.9× but only 450 ms: jitter, not a change.
    expect(livenessChanges(run(100, 500, 0), run(100, 950, 0))).toEqual([]);
    // 1.3 s more but only 1.2×: within the ratio.
    expect(livenessChanges(run(100, 6000, 0), run(100, 7300, 0))).toEqual([]);
    expect(livenessChanges(run(1, 1, 0), run(1, 1, 0, 1))).toEqual(['faults never recovered from 0 → 1']);
    expect(livenessChanges(undefined, run(1, 1, 0))).toEqual([]);
  });
});

describe('the nightly comparison shows liveness and flags a change beyond the threshold', () => {
  const night = (live: ReturnType<typeof run>): NightlyResult => ({
    version: 1,
    seed: 1,
    shard: null,
    settings: [],
    command: 'nightly',
    startedAt: '2026-12-01T00:00:00Z',
    wallMs: 1,
    expectationsFile: null,
    cells: [
      {
        index: 0,
        from: 'oracle',
        lock: 'etcd',
        fault: 'pause-node',
        fencing: false,
        runDir: 'etcd/1',
        expected: 'safe',
        observed: 'safe',
        matched: true,
        lostUpdates: 0,
        staleWritesRejected: 0,
        acquireP50: 3,
        acquireP99: 9,
        liveness: { ...live, runs: 1 },
      } satisfies NightlyCell,
    ],
  });
  it('recovery up from 2.0 s to 7.4 s: flagged, the verdict unchanged', () => {
    const [row] = compareNights(night(run(300, 7400, 0)), night(run(300, 2000, 0)));
    expect(row.verdictChanged).toBe(false);
    expect(row.livenessChanges).toEqual(['recovery max rose 2.0 s → 7.4 s']);
    const html = renderComparison(night(run(300, 7400, 0)), night(run(300, 2000, 0)), {
      tonightDir: '/n',
      baselineDir: '/b',
      outDir: '/n',
    });
    expect(html).toContain('1 for a liveness change');
    expect(html).toContain('<strong class="flag" title="flagged, not failed">recovery max rose 2.0 s → 7.4 s</strong>');
    expect(html).toContain('<td>unavailable up to 7.4 s after each fault (median 300 ms); no stall</td>');
  });
  it('the same numbers: nothing flagged', () => {
    expect(compareNights(night(run(300, 2000, 0)), night(run(300, 2100, 0)))[0].livenessChanges).toEqual([]);
  });
});
