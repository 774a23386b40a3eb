import type { RunConfig } from '../store/run-config.ts';
import { RUN_ROWS } from './options.ts';

/** A test run's option names, as its table spells them (`think`, `restart-delay`). */
export type RunOptionName = (typeof RUN_ROWS)[number]['name'];

/**
 * The run options a matrix cell or scenario may set, by the RunConfig field each one fills (runConfigOf reads the
 * option straight into the field; harness/run-overrides.test.ts parses every rendering back to check it).
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
  timeLimitS: 'time-limit',
  maxStallMs: 'max-stall',
  stopOnLostUpdate: 'stop-on-lost-update',
  watchdog: 'watchdog',
  redisPersistence: 'redis-persistence',
  retry: 'retry',
  seed: 'seed',
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

/**
 * The options that set `overrides`, in the object's order: `--think=2500`, a flag as `--watchdog` (off:
 * `--watchdog=false`). The one renderer of a cell's own options: a cell's argv is its user's, then these.
 */
export function argvOf(overrides: RunOverrides): string[] {
  return (Object.entries(overrides) as [OverridableField, RunOverrides[OverridableField]][])
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => (value === true ? `--${OPTION_OF[field]}` : `--${OPTION_OF[field]}=${optionText(value)}`));
}

/** The fields whose option's row has a plain default: the fault list's is resolved later, the seed's drawn. */
type DefaultedField = Exclude<OverridableField, 'nemesis' | 'maxStallMs' | 'seed'>;

/** The field's value in a run that was not given its option: its row's default. */
export function defaultOf<K extends DefaultedField>(field: K): RunConfig[K] {
  const row = RUN_ROWS.find((r) => r.name === OPTION_OF[field]);
  if (!row || !('default' in row)) throw new Error(`--${OPTION_OF[field]} has no plain default`);
  return row.default as RunConfig[K];
}

/**
 * An option as prose names it (`--restart-delay`, or with its value, `--retry=harness`): the remedy table's labels
 * name options through the table, so a renamed option cannot leave a label behind.
 */
export function optionShown(option: RunOptionName | RunOverrides): string {
  return typeof option === 'string' ? `--${option}` : argvOf(option).join(' ');
}
