import type { FaultName } from '../faults/fault-names.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import {
  resolvedRun,
  RUN_OPTIONS,
  runOf,
  type Config,
  type RunOptionValues,
  type RunSpelling,
} from '../harness/run-argv.ts';
import { optionValuesOf, spelledOf, type RunOptionName, type RunOverrides } from '../harness/run-overrides.ts';
import { defaultValue } from '../harness/option-table.ts';
import { checkStrategyOptions } from '../harness/strategy-options.ts';
import { ttlFractionMs } from '../common/run-timing.ts';

/** What a matrix cell (or one of its latency runs) sets itself; everything else comes from the matrix's options. */
export interface CellShape {
  /** The cell's lock, resolved (its `renews` decides whether --watchdog passes through). */
  strategy: ResolvedStrategy;
  faults: FaultName[];
  fencing: boolean;
  seed: number;
  /** A column's cap on --nemesis-interval (restart-empty must fire often to land inside a critical section). */
  maxIntervalMs?: number;
  /** A column's floor on --think, as a fraction of the cell's TTL (restart-empty: the section must outlast a restart). */
  minThinkTtlFraction?: number;
  /** A scenario's own run options (remedy table: long work's think and TTL, the watchdog, …), after the user's. */
  overrides?: RunOverrides;
  /** Options the scenario decides: the user's value for them is dropped. */
  owns?: readonly RunOptionName[];
  /** A scenario's floor on --restart-delay, as a fraction of the cell's TTL. */
  minRestartDelayTtlFraction?: number;
  /** A scenario's floor on --time-limit (slow scenarios need longer to earn a VALID). */
  minTimeLimitS?: number;
  /**
   * The cell measures liveness too (its oracle cell has a liveness expectation): its runs go to their time limit even
   * under --stop-on-lost-update, since a stall after the first lost update is part of what it shows.
   */
  fullRuns?: boolean;
  /** The latency runs: one client, a short run. */
  concurrency?: number;
  timeLimitS?: number;
}

/**
 * Options the cell decides: the matrix's own value for them is dropped, not passed through. `--retry` too: a row is
 * the lock as its library's documentation runs it, and `--retry=harness` is a remedy scenario's own option.
 */
const CELL_OWNED = new Set<RunOptionName>(['lock', 'nemesis', 'fencing', 'seed', 'runs', 'matrix', 'rows', 'retry']);

/** A cell's options: typed, and as its argv spells them (the user's as they spelled them, then the cell's own). */
interface CellOptions {
  values: RunOptionValues;
  spelled: readonly RunSpelling[];
}

/**
 * A cell's options: every option the user gave `--lock=all` passes through as they spelled it (so a new option needs
 * nothing here), the cell's lock, faults, fencing and seed replace the matrix's, and --watchdog is kept only for the
 * locks whose strategy renews its lease (the CLI refuses it for the others). An option the cell drops falls back to
 * its row's default, as if never given; the cell's own values are merged over, typed, and rendered once
 * (run-overrides.ts) for its argv.
 */
function cellOptions(matrix: Readonly<Config>, cell: CellShape): CellOptions {
  const keepWatchdog = cell.strategy.renews !== false;
  const owned = new Set<string>(cell.owns ?? []);
  const dropped = (name: string) =>
    CELL_OWNED.has(name as RunOptionName) || owned.has(name) || (name === 'watchdog' && !keepWatchdog);
  const user = Object.fromEntries(
    RUN_OPTIONS.map((row) => [row.name, dropped(row.name) ? defaultValue(row) : matrix.options[row.name]]),
  ) as RunOptionValues;
  const over = cell.overrides ?? {};
  const own = cellOwnValues(user, over, cell, matrix.stopOnLostUpdate);
  return {
    values: { ...user, ...optionValuesOf(over), ...optionValuesOf(own) },
    spelled: [...matrix.spelled.filter((s) => !dropped(s.name)), ...spelledOf(over), ...spelledOf(own)],
  };
}

/**
 * What the cell sets itself after the scenario's overrides: its lock, faults, fencing and seed, and its floors and
 * caps where they change the value it would otherwise run with (the scenario's, else the user's kept one, else the
 * default). Later options win, so these override the user's only where the cell must.
 */
function cellOwnValues(user: RunOptionValues, over: RunOverrides, cell: CellShape, matrixStops: boolean): RunOverrides {
  const interval0 = over.nemesisIntervalMs ?? user['nemesis-interval'];
  const think0 = over.thinkMs ?? user.think;
  const ttl = over.ttlMs ?? user.ttl;
  const delay0 = over.restartDelayMs ?? user['restart-delay'];
  const time0 = over.timeLimitS ?? user['time-limit'];
  const interval = Math.min(interval0, cell.maxIntervalMs ?? Infinity);
  const think = Math.max(think0, ttlFractionMs(ttl, cell.minThinkTtlFraction ?? 0, 'nearest'));
  const restartDelay = Math.max(delay0, ttlFractionMs(ttl, cell.minRestartDelayTtlFraction ?? 0, 'up'));
  const timeLimit = cell.timeLimitS ?? Math.max(time0, cell.minTimeLimitS ?? 0);
  const stopping = over.stopOnLostUpdate ?? matrixStops;
  return {
    lock: cell.strategy.lock,
    nemesis: cell.faults,
    ...(cell.fencing ? { fencing: true } : {}),
    ...(interval !== interval0 ? { nemesisIntervalMs: interval } : {}),
    ...(think !== think0 ? { thinkMs: think } : {}),
    ...(restartDelay !== delay0 ? { restartDelayMs: restartDelay } : {}),
    ...(cell.concurrency !== undefined ? { concurrency: cell.concurrency } : {}),
    ...(timeLimit !== time0 ? { timeLimitS: timeLimit } : {}),
    ...(cell.fullRuns && stopping ? { stopOnLostUpdate: false } : {}),
    seed: cell.seed,
  };
}

/** The argv a cell runs with and records (its test.json, its replay line): its options as spelled. */
export function cellArgv(matrix: Readonly<Config>, cell: CellShape): string[] {
  return cellOptions(matrix, cell).spelled.flatMap((s) => s.argv);
}

/**
 * A cell's Config, built from its typed options, through the CLI's own refusals (both halves: between options, then
 * what the strategy can do): a combination the CLI refuses (--fencing with a lock that has no token) throws its
 * HarnessError (exit 254) here, before anything starts. Parsing its argv gives the same Config
 * (matrix/cell-config.test.ts checks every cell of both tables).
 */
export function cellConfig(matrix: Readonly<Config>, cell: CellShape): Readonly<Config> {
  const { values, spelled } = cellOptions(matrix, cell);
  const config = resolvedRun(runOf(values, spelled, () => cell.seed));
  checkStrategyOptions(config, cell.strategy);
  return config;
}
