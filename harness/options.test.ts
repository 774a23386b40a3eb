import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { resolveConfig } from './run-argv.ts';
import { commandOptions, parseCommandLine } from '../cli/command-line.ts';
import { globalHelp } from '../cli/command-help.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';

function badArgs(argv: string[]): HarnessError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    return err as HarnessError;
  }
  throw new Error(`expected ${argv.join(' ')} to be rejected`);
}

describe('resolveConfig', () => {
  it('fills every default and records a seed', () => {
    const c = resolveConfig([], () => 42);
    expect(c).toMatchObject({
      command: 'run',
      lock: 'redlock',
      timeLimitS: 60,
      concurrency: 5,
      ttlMs: 2000,
      pauseMs: 3000,
      seed: 42,
      nemesis: null,
      fencing: false,
    });
  });

  it('is frozen', () => {
    const c = resolveConfig(['--lock=redis']);
    expect(Object.isFrozen(c)).toBe(true);
    expect(() => {
      (c as { lock: string }).lock = 'none';
    }).toThrow();
  });

  it('accepts --name=value and --name value, and keeps an explicit seed', () => {
    const c = resolveConfig([
      '--lock',
      'etcd',
      '--time-limit=15',
      '--seed=7',
      '--fencing',
      '--nemesis=pause-holder,clock',
    ]);
    expect(c).toMatchObject({
      lock: 'etcd',
      timeLimitS: 15,
      seed: 7,
      fencing: true,
      nemesis: ['pause-holder', 'clock'],
    });
  });

  it('takes replica-lag as the failover fault it names (held replication link, acquire, primary killed, replica promoted)', () => {
    expect(resolveConfig(['--lock=redis', '--nemesis=replica-lag']).nemesis).toEqual(['failover']);
    expect(resolveConfig(['--lock=redis', '--nemesis=failover,replica-lag,pause-holder']).nemesis).toEqual([
      'failover',
      'pause-holder',
    ]);
  });

  it('gives --lock=all one run per measured cell unless --runs says otherwise', () => {
    expect(resolveConfig(['--lock=all']).runs).toBe(1);
    expect(resolveConfig(['--lock=all', '--runs=3']).runs).toBe(3);
  });

  it('runs both matrix tables unless --matrix names one', () => {
    expect(resolveConfig(['--lock=all']).matrix).toBe('all');
    expect(resolveConfig(['--lock=all', '--matrix=remedies']).matrix).toBe('remedies');
  });

  it('--max-stall: absent = liveness measured, not judged; a number of ms otherwise, and bad values refused', () => {
    expect(resolveConfig([]).maxStallMs).toBeNull();
    expect(resolveConfig(['--max-stall=5000']).maxStallMs).toBe(5000);
    expect(badArgs(['--max-stall=0']).message).toMatch(/--max-stall must be between 1/);
    expect(globalHelp().replace(/\s+/g, ' ')).toMatch(/--max-stall=<ms> .*liveness checker/);
  });

  it('derives the pause from the TTL unless given', () => {
    expect(resolveConfig(['--ttl=1000']).pauseMs).toBe(1500);
    expect(resolveConfig(['--ttl=1000', '--pause=5000']).pauseMs).toBe(5000);
  });

  it.each([
    [['--lock=nope'], new RegExp(`unknown lock "nope"\\. Valid: ${[...BUILTIN_LOCKS, 'all'].join(', ')}`)],
    [['--time-limit=-3'], /--time-limit must be between 1 and 86400, got -3/],
    [['--concurrency=abc'], /--concurrency must be a whole number/],
    [['--nemesis=pause-holdr'], /unknown fault "pause-holdr".*Did you mean pause-holder\?/],
    [['--lokc=redis'], /unknown option --lokc\. Did you mean --lock\?/],
    [['--redis-persistence=rdb'], /must be one of none, aof-always/],
    [['--ttl'], /--ttl needs a value/],
    [['frobnicate'], /unexpected argument "frobnicate"/],
    [['--lock=./does-not-exist.ts'], /no such file/],
    [['--lock=redis', '--runs=2'], /--runs applies to --lock=all/],
    [['--lock=all', '--nemesis=clock'], /--nemesis with --lock=all: the matrix's columns are its faults/],
    [['--lock=all', '--runs=0'], /--runs must be between 1 and 20, got 0/],
    [['--lock=redis', '--matrix=remedies'], /--matrix applies to --lock=all/],
    [['--lock=all', '--matrix=remedy'], /--matrix must be one of all, faults, remedies, margins; got "remedy"/],
  ])('rejects %j with a message naming the valid values', (argv, message) => {
    expect(badArgs(argv).message).toMatch(message);
  });

  // --fencing and --watchdog depend on what the lock can do: strategy-options.test.ts, on the resolved strategies.

  it('parses subcommands and passes their own arguments through', () => {
    expect(parseCommandLine(['doctor', '--json'])).toMatchObject({ command: 'doctor', json: true });
    expect(parseCommandLine(['check', '--model=cas-register', 'h.edn'])).toMatchObject({
      command: 'check',
      rest: ['--model=cas-register', 'h.edn'],
    });
  });
});

describe('the global help', () => {
  it('lists every option a run takes with its default', () => {
    const text = globalHelp();
    // Every option a run takes (a subcommand's own, like nightly's --known-bugs, is in its own --help).
    for (const o of commandOptions('run')) expect(text).toContain(`--${o.name}`);
    expect(text).toContain('(default: 2000)');
    expect(text.replace(/\s+/g, ' ')).toContain('(default: 1.5 × ttl; 4 × ttl for the faults that wait)');
  });

  it('bounds --nemesis-interval below what a timer can hold (2^31 ms would fire every 1 ms)', () => {
    expect(() => resolveConfig(['--nemesis-interval=2147483648'])).toThrow(
      /--nemesis-interval must be between 100 and 86400000, got 2147483648/,
    );
    expect(resolveConfig(['--nemesis-interval=86400000']).nemesisIntervalMs).toBe(86_400_000);
  });
});
