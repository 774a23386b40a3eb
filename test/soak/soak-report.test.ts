import { describe, expect, it } from 'vitest';
import {
  failureText,
  roundFailures,
  roundResults,
  seedsIn,
  soakText,
  tally,
  type RoundResult,
  type VitestJson,
} from './soak-report.ts';

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

  it("keeps a scripted run's whole summary from its assertion message, without the stack", () => {
    // Last stop's soak kept only `A acquire: done …` of a diverged watchdog script: the step that diverged was lost.
    const text = [
      'AssertionError: A acquire: done A was granted account 0 (#1)',
      'wait A renew: diverged no renewal within 5000 ms',
      'A write: pending ',
      '',
      'expected false to be true // Object.is equality',
      '    at /work/main/nemesis/pause-holder.servers.test.ts:117:47',
      '    at processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');
    expect(failureText(text)).toBe(text.split('\n').slice(0, 5).join('\n'));
    expect(failureText(`${'line\n'.repeat(40)}  at x`).split('\n')).toHaveLength(30);
    expect(failureText('\n\n')).toBe('(no message)');
    const out = soakText(
      tally([[{ file: 'a.test.ts', test: 'a › x', status: 'failed', message: failureText(text), seeds: [] }]]),
      1,
      true,
    );
    expect(out).toContain('    wait A renew: diverged no renewal within 5000 ms');
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

  it('reads every test of a round: passed, failed and skipped', () => {
    const r: VitestJson = {
      numFailedTests: 1,
      numPassedTests: 1,
      testResults: [
        {
          name: `${ROOT}/a.test.ts`,
          status: 'failed',
          assertionResults: [
            { fullName: 'a › ok', status: 'passed' },
            { fullName: 'a › flaky', status: 'failed', failureMessages: ['AssertionError: seed 9'] },
            { fullName: 'a › later', status: 'skipped' },
            { fullName: 'a › todo', status: 'todo' },
          ],
        },
      ],
    };
    expect(roundResults(r, ROOT).map((x) => [x.test, x.status, x.seeds])).toEqual([
      ['a › ok', 'passed', []],
      ['a › flaky', 'failed', ['9']],
      ['a › later', 'skipped', []],
      ['a › todo', 'skipped', []],
    ]);
  });

  it('counts the rounds each test failed and passed in, most failures first, and ends with one line of counts', () => {
    const r = (file: string, test: string, status: RoundResult['status'], message = '', seeds: string[] = []) => ({
      file,
      test,
      status,
      message,
      seeds,
    });
    const a = (status: RoundResult['status'], message = '', seeds: string[] = []) =>
      r('a.test.ts', 'a › x', status, message, seeds);
    const b = (status: RoundResult['status'], message = '') => r('b.test.ts', 'b › y', status, message);
    const c = r('c.test.ts', 'c › z', 'passed');
    const t = tally([
      [a('passed'), b('failed', 'bang'), c],
      [a('passed'), b('passed'), c],
      [a('failed', 'boom', ['1']), b('failed', 'bang'), c],
      [a('failed', 'boom again', ['2']), b('skipped'), c],
    ]);
    expect(t.map((x) => [x.test, x.rounds, x.passed, x.seeds])).toEqual([
      ['a › x', [3, 4], 2, ['1', '2']],
      ['b › y', [1, 3], 1, []],
      ['c › z', [], 4, []],
    ]);
    const text = soakText(t, 4, true);
    expect(text).toContain(
      'FAILED 2/4, passed 2/4  a.test.ts › a › x\n    rounds 3, 4; seeds 1, 2\n    boom\n    boom again',
    );
    expect(text).toContain('FAILED 2/4, passed 1/4  b.test.ts › b › y\n    rounds 1, 3; seeds none printed\n    bang');
    expect(text).not.toContain('c › z');
    expect(text.split('\n').at(-1)).toBe(
      'soak: 2 test(s) failed at least once in 4 round(s) beside a CPU hog: 3 test(s); 7 of 11 test runs passed',
    );
    expect(soakText(tally([[c], [c]]), 2, false)).toBe(
      'soak: 0 failures in 2 round(s): 1 test(s); 2 of 2 test runs passed',
    );
  });
});
