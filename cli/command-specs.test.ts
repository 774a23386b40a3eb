import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { parseCommandLine } from './command-line.ts';
import { resolveConfig, runOptions } from '../harness/run-argv.ts';
import { parseCheckArgs } from '../harness/check-options.ts';

/** The refusal of an argv: exit code and message, as the CLI prints them. */
function refused(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    return `${(err as HarnessError).exitCode} ${(err as HarnessError).message}`;
  }
  return 'accepted';
}

describe('each subcommand takes its own options, and only those', () => {
  it.each([
    [
      ['--lock=all', '--json'],
      '254 --json with --lock=all: the matrix writes matrix.json (one object per cell) beside matrix.html in the results folder.',
    ],
    [['--lock=redis', '--data'], '254 --data applies to the cleanup subcommand.'],
    [
      ['nightly', '--rows=redis'],
      "254 --rows with nightly: the nightly job runs the whole matrix (every lock × the oracle's faults, fenced where a lock has a token).",
    ],
    [['--port=8080'], '254 --port applies to the serve subcommand.'],
    [['doctor', '--ttl=500'], '254 --ttl applies to a test run and the nightly subcommand, not doctor.'],
    [['doctor', '--data'], '254 --data applies to the cleanup subcommand.'],
    [['cleanup', '--json'], '254 --json applies to a test run and the doctor subcommand, not cleanup.'],
    [
      ['cleanup', '--backend=docker'],
      '254 --backend applies to a test run and the nightly/doctor/lock-check subcommands, not cleanup.',
    ],
    [['serve', '--seed=3'], '254 --seed applies to a test run and the nightly subcommand, not serve.'],
    [['serve', '--baseline=/tmp/x'], '254 --baseline applies to the nightly subcommand.'],
    [
      ['init', '--results=here'],
      '254 --results applies to a test run and the nightly/doctor/lock-check/cleanup/serve subcommands, not init.',
    ],
    [['nightly', '--port=1'], '254 --port applies to the serve subcommand.'],
    [['doctor', 'now'], '254 unexpected argument "now" after doctor.'],
    [['redlock'], /^254 unexpected argument "redlock"\. .* Did you mean --lock=redlock\?$/],
    [['run', '--lock=redis'], /^254 unexpected argument "run"\. .* A run needs no verb: drop "run"\.$/],
  ])('%j → %s', (argv, message) => {
    if (typeof message === 'string') expect(refused(argv)).toBe(message);
    else expect(refused(argv)).toMatch(message);
  });

  it('a run and --lock=all refuse each other options', () => {
    expect(refused(['--lock=redis', '--runs=2'])).toMatch(/^254 --runs applies to --lock=all/);
    expect(refused(['--lock=redis', '--matrix=faults'])).toMatch(/^254 --matrix applies to --lock=all/);
    expect(refused(['--lock=all', '--fencing'])).toMatch(/^254 --fencing with --lock=all/);
    expect(refused(['--lock=all', '--nemesis=none'])).toMatch(/^254 --nemesis with --lock=all/);
    expect(refused(['nightly', '--fencing'])).toMatch(
      /^254 --fencing with nightly: the nightly job runs the whole matrix/,
    );
    expect(refused(['nightly', '--lock=redis'])).toMatch(/^254 --lock with nightly/);
  });

  it('an unknown option is unknown, with the subcommand’s own options as the choices', () => {
    expect(refused(['cleanup', '--dat'])).toBe(
      '254 unknown option --dat. Did you mean --data? Valid options: --results --target --data --delete-unrecorded --help',
    );
  });

  it('gives each subcommand a config of its own options', () => {
    expect(parseCommandLine(['doctor', '--json', '--backend=local'])).toEqual({
      command: 'doctor',
      help: false,
      backend: 'local',
      resultsDir: expect.stringMatching(/\/results$/),
      json: true,
    });
    expect(parseCommandLine(['cleanup', '--data'])).toMatchObject({ command: 'cleanup', data: true });
    expect(parseCommandLine(['serve'])).toMatchObject({ command: 'serve', port: null });
    expect(parseCommandLine(['serve', '--port=9000'])).toMatchObject({ command: 'serve', port: 9000 });
    expect(parseCommandLine(['init'])).toEqual({ command: 'init', help: false });
    const night = parseCommandLine(['nightly', '--ttl=500', '--runs=2', '--shard=1/2'], () => 9);
    expect(night).toMatchObject({ command: 'nightly', seed: 9, shard: { index: 1, count: 2 }, cells: 'all' });
    expect(night).not.toHaveProperty('ttlMs');
    expect(parseCommandLine(['init', '--help']).help).toBe(true);
  });

  it('resolveConfig builds runs only: a subcommand is not a run', () => {
    // It sits below the CLI's table (harness/run-argv.ts), so it knows no subcommand's name: any word is refused.
    expect(() => resolveConfig(['doctor'])).toThrow(/^unexpected argument "doctor"\. A run's argv has no subcommand;/);
  });
});

describe("test.json's config", () => {
  it("records the run's options, none of the CLI's", () => {
    const recorded = runOptions(resolveConfig(['--lock=redis', '--ttl=1000', '--seed=5']));
    expect(Object.keys(recorded).sort()).toEqual(
      [
        'accounts',
        'argv',
        'backend',
        'clockOffsetS',
        'clockRate',
        'concurrency',
        'etcdNodes',
        'fencing',
        'lock',
        'maxShots',
        'maxStallMs',
        'minWrites',
        'nemesis',
        'nemesisIntervalMs',
        'pauseMs',
        'storyWaitMs',
        'redisPersistence',
        'redisServer',
        'restartDelayMs',
        'resultsDir',
        'retry',
        'scenario',
        'seed',
        'stopOnLostUpdate',
        'thinkMs',
        'target',
        'timeLimitS',
        'ttlMs',
        'watchdog',
        'zkNodes',
      ].sort(),
    );
    expect(recorded).toMatchObject({ lock: 'redis', ttlMs: 1000, pauseMs: 1500, seed: 5 });
  });
});

describe('check’s options', () => {
  it.each([
    [
      ['--model=register', '--deadline=0.5', '--initial=0', 'h.edn'],
      { model: 'register', deadlineMs: 0.5, initial: 0, targets: ['h.edn'] },
    ],
    [['--model', 'mutex', 'a.edn', 'b.edn'], { model: 'mutex', targets: ['a.edn', 'b.edn'] }],
    [['results/redis/1'], { targets: ['results/redis/1'] }],
    [['--model=cas-register', '--initial=null', 'h.edn'], { model: 'cas-register', initial: null, targets: ['h.edn'] }],
  ])('%j → %j', (args, parsed) => {
    expect(parseCheckArgs(args)).toEqual(parsed);
  });

  it.each([
    [['--model=bogus', 'x'], /^unknown model "bogus"; valid models: register/],
    [['--deadline=-1', 'x'], /^--deadline must be a positive number of milliseconds, got "-1"$/],
    [['--model=register', '--initial={', 'x'], /^--initial must be a JSON value/],
    [['--initial=0', 'x'], /^--initial only applies to --model=register or --model=cas-register$/],
    [['--ttl=5', 'x'], /^unknown option --ttl\. Valid options: --model --deadline --initial --help$/],
    [['-h'], /^help requested$/],
  ])('%j → %s', (args, message) => {
    expect(parseCheckArgs(args)).toMatch(message);
  });
});
