import { describe, expect, it } from 'vitest';
import { resolveConfig } from './run-argv.ts';
import { argvOf, defaultOf, OPTION_OF, type RunOverrides } from './run-overrides.ts';

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
  timeLimitS: 30,
  maxStallMs: 5000,
  stopOnLostUpdate: true,
  watchdog: true,
  redisPersistence: 'aof-always',
  retry: 'harness',
  seed: 42,
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

  it("gives a field's default as a run without its option has it", () => {
    const plain = resolveConfig(['--lock=redis']);
    for (const field of ['thinkMs', 'ttlMs', 'restartDelayMs', 'timeLimitS', 'nemesisIntervalMs'] as const)
      expect(defaultOf(field), field).toBe(plain[field]);
    expect(defaultOf('stopOnLostUpdate')).toBe(false);
  });
});
