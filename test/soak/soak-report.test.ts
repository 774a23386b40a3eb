import { describe, expect, it } from 'vitest';
import { roundFailures, seedsIn, soakText, tally, type VitestJson } from './soak-report.ts';

const ROOT = '/work/fencepost';

const report = (failed: { file: string; test: string; message: string }[], fileFailure?: string): VitestJson => ({
  numFailedTests: failed.length,
  numPassedTests: 3,
  testResults: [
    {
      name: `${ROOT}/nemesis/faults/delay-write.servers.test.ts`,
      status: failed.length ? 'failed' : 'passed',
      assertionResults: [
        { fullName: 'delay-write › tells its story', status: 'passed' },
        ...failed.map((f) => ({ fullName: f.test, status: 'failed', failureMessages: [f.message] })),
      ],
    },
    ...(fileFailure
      ? [{ name: `${ROOT}/test/integration/cli.test.ts`, status: 'failed', message: fileFailure, assertionResults: [] }]
      : []),
  ],
});

describe('the soak reads each round and tallies every test that ever failed', () => {
  it('finds the seeds a failure printed, however it spelled them', () => {
    expect(seedsIn('UNKNOWN (seed 1325307643)\n  → npm run jepsen -- --lock=postgres --seed=1325307643')).toEqual([
      '1325307643',
    ]);
    expect(seedsIn('seed: 42, and --seed 7')).toEqual(['42', '7']);
    expect(seedsIn('no number here')).toEqual([]);
  });

  it("names a failed test by file and name, and a file that failed outside its tests as the file's own failure", () => {
    const r = report(
      [{ file: '', test: 'delay-write › held ≥ TTL', message: '\nexpected 1999 to be ≥ 2000 (seed 5)\n  at …' }],
      'Error: hook timed out in 180000ms',
    );
    expect(roundFailures(r, ROOT)).toEqual([
      {
        file: 'nemesis/faults/delay-write.servers.test.ts',
        test: 'delay-write › held ≥ TTL',
        message: 'expected 1999 to be ≥ 2000 (seed 5)',
        seeds: ['5'],
      },
      {
        file: 'test/integration/cli.test.ts',
        test: '(the file itself: a hook or its import)',
        message: 'Error: hook timed out in 180000ms',
        seeds: [],
      },
    ]);
  });

  it('counts the rounds each test failed in, most frequent first, and ends with one line of counts', () => {
    const a = { file: 'a.test.ts', test: 'a › x', message: 'boom', seeds: ['1'] };
    const b = { file: 'b.test.ts', test: 'b › y', message: 'bang', seeds: [] };
    const t = tally([[b], [], [a, b], [{ ...a, seeds: ['2'], message: 'boom again' }]]);
    expect(t.map((x) => [x.test, x.rounds, x.seeds])).toEqual([
      ['a › x', [3, 4], ['1', '2']],
      ['b › y', [1, 3], []],
    ]);
    const text = soakText(t, 4, true);
    expect(text).toContain('FAILED 2/4  a.test.ts › a › x\n    rounds 3, 4; seeds 1, 2\n    boom\n    boom again');
    expect(text.split('\n').at(-1)).toBe('soak: 2 test(s) failed at least once in 4 round(s) beside a CPU hog');
    expect(soakText([], 10, false)).toBe('soak: 0 failures in 10 round(s)');
  });
});
