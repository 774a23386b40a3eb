import { describe, expect, it } from 'vitest';
import { resolveConfig } from './run-argv.ts';
import { argvOf, OPTION_OF, optionValuesOf, type RunOverrides } from './run-overrides.ts';

/** A value for every field a cell may set, each other than its default, so a wrong option name cannot pass. */
const EVERY: Required<RunOverrides> = {
  lock: 'etcd',
  nemesis: ['pause-holder', 'kill'],
  fencing: true,
  nemesisIntervalMs: 700,
  thinkMs: 2500,
  ttlMs: 1000,
  restartDelayMs: 900,
  concurrency: 3,
  accounts: 4,
  timeLimitS: 30,
  maxShots: 3,
  maxStallMs: 5000,
  stopOnLostUpdate: true,
  watchdog: true,
  redisPersistence: 'aof-always',
  retry: 'harness',
  clockRate: 0.6,
  pauseMs: 6500,
  seed: 42,
  resultsDir: '/tmp/fencepost-overrides',
};

describe('argvOf: typed run options rendered as the command line spells them', () => {
  it('renders each field as its option, in the given order, a flag bare', () => {
    expect(argvOf({ thinkMs: 2500, ttlMs: 1000, watchdog: true })).toEqual([
      '--think=2500',
      '--ttl=1000',
      '--watchdog',
    ]);
    expect(argvOf({ nemesis: [], stopOnLostUpdate: false, retry: 'harness' })).toEqual([
      '--nemesis=none',
      '--stop-on-lost-update=false',
      '--retry=harness',
    ]);
  });

  it('parses back to the same values: every field is the option runConfigOf reads into it', () => {
    expect(Object.keys(EVERY).sort()).toEqual(Object.keys(OPTION_OF).sort());
    const config = resolveConfig(argvOf(EVERY));
    for (const [field, value] of Object.entries(EVERY))
      expect(config[field as keyof RunOverrides], field).toEqual(value);
  });

  it("gives each field as its option's typed value, the same the parse gives", () => {
    const config = resolveConfig(argvOf(EVERY));
    for (const [name, value] of Object.entries(optionValuesOf(EVERY)))
      expect(config.options[name as keyof typeof config.options], name).toEqual(value);
  });

  it("refuses a value out of its row's bounds as a typed-in one is refused", () => {
    expect(() => optionValuesOf({ thinkMs: 700_000 })).toThrow('--think must be between 0 and 600000, got 700000.');
    expect(() => resolveConfig(['--think=700000'])).toThrow('--think must be between 0 and 600000, got 700000.');
  });
});
