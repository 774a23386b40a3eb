import type { FaultName } from '../faults/fault-names.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { RUN_OPTIONS, resolveConfig, type Config } from '../harness/run-argv.ts';
import { argvOf, defaultOf, OPTION_OF, type RunOptionName, type RunOverrides } from '../harness/run-overrides.ts';
import type { OptionKind } from '../harness/option-table.ts';
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
const CELL_OWNED = new Set(['lock', 'nemesis', 'fencing', 'seed', 'runs', 'matrix', 'retry']);

/**
 * argv without the named options, whether spelled `--name=value`, `--name value` or `--name` (a flag). A flag is
 * known by a run's table; an option a run does not take is read as taking a value, as each of nightly's own does.
 */
export function withoutOptions(argv: readonly string[], drop: (name: string) => boolean): string[] {
  const kinds = new Map<string, OptionKind>(RUN_OPTIONS.map((o) => [o.name, o.kind]));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : null;
    const takesNext =
      name !== null && eq === -1 && kinds.get(name) !== 'bool' && i + 1 < argv.length && !argv[i + 1].startsWith('--');
    if (name !== null && drop(name)) {
      if (takesNext) i++;
      continue;
    }
    out.push(arg);
    if (takesNext) out.push(argv[++i]);
  }
  return out;
}

/**
 * The argv of one cell's run: every option the user gave `--lock=all` passes through as they spelled it (so a
 * new option needs nothing here), the cell's lock, faults, fencing and seed replace the matrix's, and --watchdog
 * is kept only for the locks whose strategy renews its lease (the CLI refuses it for the others). Rendered once,
 * from typed values (run-overrides.ts), and parsed once, by cellConfig.
 */
export function cellArgv(matrix: Readonly<Config>, cell: CellShape): string[] {
  const keepWatchdog = cell.strategy.renews !== false;
  const owned = new Set<string>(cell.owns ?? []);
  const dropped = (name: string) => CELL_OWNED.has(name) || owned.has(name) || (name === 'watchdog' && !keepWatchdog);
  const argv = withoutOptions(matrix.argv, dropped);
  const over = cell.overrides ?? {};
  // The values the cell runs with before its floors and caps: the scenario's, else the user's unless the cell
  // dropped it, else the option's default — what parsing the argv so far would give.
  const before = <K extends 'nemesisIntervalMs' | 'thinkMs' | 'ttlMs' | 'restartDelayMs' | 'timeLimitS'>(k: K) =>
    over[k] ?? (dropped(OPTION_OF[k]) ? defaultOf(k) : matrix[k]);
  const interval0 = before('nemesisIntervalMs');
  const think0 = before('thinkMs');
  const ttl = before('ttlMs');
  const delay0 = before('restartDelayMs');
  const time0 = before('timeLimitS');
  const interval = Math.min(interval0, cell.maxIntervalMs ?? Infinity);
  const think = Math.max(think0, ttlFractionMs(ttl, cell.minThinkTtlFraction ?? 0, 'nearest'));
  const restartDelay = Math.max(delay0, ttlFractionMs(ttl, cell.minRestartDelayTtlFraction ?? 0, 'up'));
  const timeLimit = cell.timeLimitS ?? Math.max(time0, cell.minTimeLimitS ?? 0);
  const stopping = over.stopOnLostUpdate ?? matrix.stopOnLostUpdate;
  return [
    ...argv,
    ...argvOf(over),
    ...argvOf({
      lock: cell.strategy.lock,
      nemesis: cell.faults,
      ...(cell.fencing ? { fencing: true } : {}),
      // Later occurrences win: these override what the user gave only where the cell must.
      ...(interval !== interval0 ? { nemesisIntervalMs: interval } : {}),
      ...(think !== think0 ? { thinkMs: think } : {}),
      ...(restartDelay !== delay0 ? { restartDelayMs: restartDelay } : {}),
      ...(cell.concurrency !== undefined ? { concurrency: cell.concurrency } : {}),
      ...(timeLimit !== time0 ? { timeLimitS: timeLimit } : {}),
      ...(cell.fullRuns && stopping ? { stopOnLostUpdate: false } : {}),
      seed: cell.seed,
    }),
  ];
}

/**
 * A cell's Config, through the CLI's own option validation (both halves: the argv, then what the strategy can
 * do): a combination the CLI refuses (--fencing with a lock that has no token) throws its HarnessError (exit 254)
 * here, before anything starts.
 */
export function cellConfig(matrix: Readonly<Config>, cell: CellShape): Readonly<Config> {
  const config = resolveConfig(cellArgv(matrix, cell));
  checkStrategyOptions(config, cell.strategy);
  return config;
}
