import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { parseCommandLine } from '../cli/command-line.ts';
import { globalHelp } from '../cli/command-help.ts';

/** The refusal of argv, exit 254, before anything started. */
function refusal(argv: string[]): HarnessError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    return err as HarnessError;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
}

describe('a duration given with a unit', () => {
  // It said "--ttl must be a whole number ≥ 100, got "2s"": the unit, which is the answer, went unsaid.
  it.each([
    ['--ttl=2s', '--ttl takes milliseconds: --ttl=2000'],
    ['--pause=1.5s', '--pause takes milliseconds: --pause=1500'],
    ['--think=800ms', '--think takes milliseconds: --think=800'],
    ['--time-limit=2m', '--time-limit takes seconds: --time-limit=120'],
  ])('%s is refused with the unit and the value it meant', (arg, message) => {
    expect(refusal(['--lock=redis', arg]).message).toBe(message);
  });

  it('still says "a whole number" for a value that is no duration', () => {
    expect(refusal(['--ttl=abc']).message).toBe('--ttl must be a whole number ≥ 100, got "abc".');
  });
});

describe('a fault that needs another client, with one client', () => {
  // It ran for its whole time limit and ended UNKNOWN (exit 2): "pause-holder fired 1 time but its story never completed".
  it('refuses pause-holder with --concurrency=1, saying why and what to give', () => {
    const err = refusal(['--lock=redis', '--nemesis=pause-holder', '--concurrency=1']);
    expect(err.message).toBe(
      '--nemesis=pause-holder with --concurrency=1: pause-holder needs another client to take the lock while the holder is struck, and one client has no other: the run could only end UNKNOWN.',
    );
    expect(err.hint).toMatch(/^give --concurrency=2 or more/);
  });

  it('names only the faults that need another client', () => {
    const err = refusal(['--lock=redis', '--nemesis=pause-node,restart-empty,pause-holder', '--concurrency=1']);
    expect(err.message).toMatch(/^--nemesis=restart-empty,pause-holder with --concurrency=1: /);
  });

  it('lets one client run faults that need no other, and pause-holder with two', () => {
    expect(parseCommandLine(['--lock=redis', '--nemesis=pause-node', '--concurrency=1']).concurrency).toBe(1);
    expect(parseCommandLine(['--lock=redis', '--nemesis=none', '--concurrency=1']).concurrency).toBe(1);
    expect(parseCommandLine(['--lock=redis', '--nemesis=pause-holder', '--concurrency=2']).concurrency).toBe(2);
  });
});

describe("--pause's help", () => {
  // It read "… at most this long (default 4 × ttl) (default: 1.5 × ttl)": two defaults in one entry.
  it('gives one default, both rules in it', () => {
    const entry = globalHelp(120)
      .replace(/\s+/g, ' ')
      .match(/--pause=<ms> (.*?) --restart-delay/)![1];
    expect(entry.match(/\(default/g)).toHaveLength(1);
    expect(entry).toContain('(default: 1.5 × ttl; 4 × ttl for the faults that wait)');
  });
});
