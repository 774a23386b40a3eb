import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rootOf, slowestFiles, slowWithoutReason, tierTimes, timesText, type TimedReport } from './file-times.ts';
import { SLOW_FILE_S, SLOW_FOR_A_REASON } from './slow-for-a-reason.ts';

const at = (root: string, name: string, start: number, end: number) => ({
  name: `${root}/${name}`,
  startTime: start,
  endTime: end,
});

const before: TimedReport = {
  testResults: [
    at('/tmp/a/fencepost', 'harness/options.test.ts', 0, 2_000),
    at('/tmp/a/fencepost', 'nemesis/leader-churn.servers.test.ts', 10_000, 108_000),
    at('/tmp/a/fencepost', 'test/integration/workload.test.ts', 10_000, 84_000),
    at('/tmp/a/fencepost', 'test/docker/non-root.test.ts', 200_000, 200_000),
  ],
};
const after: TimedReport = {
  testResults: [
    at('/tmp/b/fencepost', 'harness/options.test.ts', 0, 1_000),
    at('/tmp/b/fencepost', 'nemesis/leader-churn.servers.test.ts', 5_000, 45_000),
    at('/tmp/b/fencepost', 'test/integration/workload.test.ts', 5_000, 25_000),
    at('/tmp/b/fencepost', 'test/integration/installed-package.test.ts', 6_000, 61_000),
    at('/tmp/b/fencepost', 'faults/new/new.servers.test.ts', 7_000, 9_000),
  ],
};

describe('test times', () => {
  it('finds the checkout each report ran in, whatever folder it was cloned into', () => {
    expect(rootOf(before)).toBe('/tmp/a/fencepost/');
    expect(rootOf(after)).toBe('/tmp/b/fencepost/');
    expect(rootOf({ testResults: [at('/x', 'a/b.test.ts', 0, 1)] })).toBe('/x/a/');
  });

  it('times each tier from its first file start to its last file end; an all-skipped file adds no span', () => {
    expect(tierTimes(before)).toEqual([
      { tier: 'unit', files: 1, wallS: 2, summedS: 2 },
      { tier: 'servers', files: 2, wallS: 98, summedS: 172 },
      { tier: 'docker', files: 1, wallS: 0, summedS: 0 },
    ]);
  });

  it('lists the slowest files of the later report beside their earlier seconds; a new file has none', () => {
    expect(slowestFiles(after, 3, before).map((r) => [r.file, r.before, r.seconds])).toEqual([
      ['test/integration/installed-package.test.ts', null, 55],
      ['nemesis/leader-churn.servers.test.ts', 98, 40],
      ['test/integration/workload.test.ts', 74, 20],
    ]);
  });

  it('gives a slow file its recorded reason, and names a file over the bound without one', () => {
    const rows = slowestFiles(after, 2, before);
    expect(rows[0].reason).toBe(SLOW_FOR_A_REASON['test/integration/installed-package.test.ts'].reason);
    expect(rows[1].reason).toBe('no reason recorded');
    expect(slowWithoutReason(after)).toEqual([
      `nemesis/leader-churn.servers.test.ts: 40.0 s (over ${SLOW_FILE_S} s, no reason recorded)`,
    ]);
  });

  it('names a file with a reason that took longer than its reason allows', () => {
    const slow: TimedReport = {
      testResults: [
        at('/c', 'test/integration/installed-package.test.ts', 0, 100_000),
        at('/c', 'harness/x.test.ts', 0, 1),
      ],
    };
    expect(slowWithoutReason(slow)).toEqual([
      'test/integration/installed-package.test.ts: 100.0 s (over the 60 s its reason allows)',
    ]);
  });

  it('prints before → after per tier and per file', () => {
    const text = timesText(after, 2, before);
    expect(text).toContain('tier servers: 4 files, wall 56 s, files summed 117 s (before: wall 98 s, summed 172 s)');
    expect(text).toContain('  98.0 →  40.0  nemesis/leader-churn.servers.test.ts  — no reason recorded');
  });

  it('records a reason only for files that exist', () => {
    for (const file of Object.keys(SLOW_FOR_A_REASON)) expect(fs.existsSync(file), file).toBe(true);
  });
});
