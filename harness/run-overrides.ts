import type { RunConfig } from '../store/run-config.ts';
import { RUN_ROWS } from './options.ts';
import { withinBounds, type OptionSpec } from './option-table.ts';
import type { RunOptionValues, RunSpelling } from './run-argv.ts';

/** A test run's option names, as its table spells them (`think`, `restart-delay`). */
export type RunOptionName = (typeof RUN_ROWS)[number]['name'];

/**
 * The run options a matrix cell, a scenario or a shrink candidate may set, by the RunConfig field each one fills
 * (runConfigOf reads the option straight into the field; harness/run-overrides.test.ts parses every rendering back
 * to check it).
 */
export const OPTION_OF = {
  lock: 'lock',
  nemesis: 'nemesis',
  fencing: 'fencing',
  nemesisIntervalMs: 'nemesis-interval',
  thinkMs: 'think',
  ttlMs: 'ttl',
  restartDelayMs: 'restart-delay',
  concurrency: 'concurrency',
  accounts: 'accounts',
  timeLimitS: 'time-limit',
  maxShots: 'shots',
  maxStallMs: 'max-stall',
  stopOnLostUpdate: 'stop-on-lost-update',
  watchdog: 'watchdog',
  redisPersistence: 'redis-persistence',
  retry: 'retry',
  clockRate: 'clock-rate',
  pauseMs: 'pause',
  seed: 'seed',
  resultsDir: 'results',
} as const satisfies Partial<Record<keyof RunConfig, RunOptionName>>;

type OverridableField = keyof typeof OPTION_OF;

/**
 * Config fields a cell sets, typed (fast-check's way: options are values, the command line is rendered from
 * them), e.g. `{ thinkMs: 2500, ttlMs: 1000 }`: `argvOf` writes them as the options that set them.
 */
export type RunOverrides = { readonly [K in OverridableField]?: NonNullable<RunConfig[K]> };

function optionText(value: RunOverrides[OverridableField]): string {
  // A fault list: the CLI's own spelling, `none` for no fault.
  if (Array.isArray(value)) return value.join(',') || 'none';
  return String(value);
}

/** The overrides that are set, in the object's order. */
const entriesOf = (overrides: RunOverrides) =>
  (Object.entries(overrides) as [OverridableField, RunOverrides[OverridableField]][]).filter(
    ([, value]) => value !== undefined,
  );

/**
 * The options that set `overrides`, in the object's order, each as one argument: `--think=2500`, a flag as
 * `--watchdog` (off: `--watchdog=false`). The one renderer of typed run options: a cell's argv is its user's options
 * as they spelled them, then these.
 */
export function spelledOf(overrides: RunOverrides): RunSpelling[] {
  return entriesOf(overrides).map(([field, value]) => ({
    name: OPTION_OF[field],
    argv: [value === true ? `--${OPTION_OF[field]}` : `--${OPTION_OF[field]}=${optionText(value)}`],
  }));
}

/** `spelledOf`'s arguments: what a scenario's options and a label in prose print. */
export function argvOf(overrides: RunOverrides): string[] {
  return spelledOf(overrides).flatMap((s) => s.argv);
}

/**
 * The overrides as the run's typed options (each field's value is its option's, as runConfigOf reads it), a whole
 * number checked against its row's bounds as a typed-in one would be: a cell's floor cannot slip past a limit.
 */
export function optionValuesOf(overrides: RunOverrides): Partial<RunOptionValues> {
  return Object.fromEntries(
    entriesOf(overrides).map(([field, value]) => {
      const row: OptionSpec = RUN_ROWS.find((r) => r.name === OPTION_OF[field])!;
      return [row.name, row.kind === 'int' ? withinBounds(row, value as number) : value];
    }),
  ) as Partial<RunOptionValues>;
}

/**
 * An option as prose names it (`--restart-delay`, or with its value, `--retry=harness`): the remedy table's labels
 * name options through the table, so a renamed option cannot leave a label behind.
 */
export function optionShown(option: RunOptionName | RunOverrides): string {
  return typeof option === 'string' ? `--${option}` : argvOf(option).join(' ');
}
