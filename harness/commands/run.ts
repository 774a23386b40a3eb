import fs from 'node:fs';
import path from 'node:path';
import { BUILTIN_LOCKS, isPluginPath } from '../../workloads/lock-names.ts';
import type { RunConfig } from '../../store/run-config.ts';
import { HELP_OPTION, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { bad, didYouMean, parseArgv, type OptionSpec } from '../option-table.ts';
import { RUN_ROWS, runConfigOf } from '../options.ts';

/**
 * `fencepost [options]`: one test run, or with `--lock=all` the matrix. Its table is the run's rows (options.ts) and
 * two of its own that say how the run talks to the terminal, not what it tests (so not in the test record).
 */

/**
 * `fencepost [options]`: one test run, or with `--lock=all` the matrix. `runs` and `matrix` are --lock=all's
 * (their defaults otherwise: given with one lock they are refused); the test record keeps only the RunConfig part.
 */
export interface Config extends RunConfig {
  readonly command: 'run';
  readonly help: boolean;
  readonly runs: number;
  readonly matrix: 'all' | 'faults' | 'remedies';
  /** --verbose: each fault's raw record in the live log. */
  readonly verbose: boolean;
  /** The user gave --think: a fault that needs a wider critical section does not widen it (harness/run.ts). */
  readonly thinkGiven: boolean;
  /** --dry-run: with --target, print what the run would execute and touch, and stop. */
  readonly dryRun: boolean;
}
const TABLE = [
  ...RUN_ROWS,
  {
    name: 'dry-run',
    kind: 'bool',
    default: false,
    help: 'with --target: print every command the run would execute on the target and every key it would touch, then stop',
  },
  {
    name: 'verbose',
    kind: 'bool',
    default: false,
    help: "the live log prints each fault's raw start and end record (its JSON parameters) instead of one sentence",
  },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

function validateLock(lock: string): void {
  if ((BUILTIN_LOCKS as readonly string[]).includes(lock) || lock === 'all') return;
  // A lock in another language: its manifest or program is checked where it is loaded (workloads/foreign/manifest.ts).
  if (lock.startsWith('exec:')) return;
  if (isPluginPath(lock)) {
    if (!fs.existsSync(path.resolve(lock)))
      throw bad(
        `--lock=${lock}: no such file (${path.resolve(lock)}).`,
        'a plugin lock is a .ts/.js module path; see docs/your-lock.md',
      );
    return;
  }
  throw bad(
    `unknown lock "${lock}". Valid: ${[...BUILTIN_LOCKS, 'all'].join(', ')}, or a path to a plugin module (./my-lock.ts).${didYouMean(lock, [...BUILTIN_LOCKS, 'all'])}`,
  );
}

/**
 * What one lock and --lock=all refuse of each other's options. With --lock=all the matrix picks faults and
 * fencing per cell; with one lock there are no cells to count or tables to pick. (What a lock can do — a token for
 * --fencing, a lease for --watchdog — is the strategy's to say: strategy-options.ts, once it is resolved.)
 */
function refuseAcrossModes(lock: string, given: readonly string[]): void {
  const matrix = lock === 'all';
  for (const name of given) {
    if (matrix && name === 'fencing')
      throw bad(
        '--fencing with --lock=all: the matrix already runs the fenced variant of every lock that has a token.',
        'drop --fencing',
      );
    if (matrix && name === 'nemesis')
      throw bad(
        "--nemesis with --lock=all: the matrix's columns are its faults (no fault, holder paused, Redis restart empty, clock jump, fenced) and its scenarios (failure modes and remedies).",
        'drop --nemesis, or run one lock: --lock=<lock> --nemesis=<fault,…>',
      );
    if (matrix && name === 'target')
      throw bad(
        "--target with --lock=all: the matrix measures the locks on fencepost's own servers, cell against cell.",
        'run one lock against your target: --lock=<lock> --target=<file> --nemesis=<fault,…>',
      );
    if (!matrix && name === 'runs')
      throw bad(
        `--runs applies to --lock=all (runs per matrix cell); --lock=${lock} is one run.`,
        'drop --runs, or use --lock=all',
      );
    if (!matrix && name === 'matrix')
      throw bad(
        `--matrix applies to --lock=all (which tables to run); --lock=${lock} is one run.`,
        'drop --matrix, or use --lock=all',
      );
  }
}

/** The test record's `config`: the run's options and nothing of the CLI's (no command, help, matrix or nightly fields). */
export function runOptions(config: RunConfig): RunConfig {
  const { argv, lock, nemesis, nemesisIntervalMs, timeLimitS, concurrency, ttlMs, thinkMs, accounts } = config;
  const { scenario, maxShots } = config;
  const { minWrites, maxStallMs, fencing, watchdog, pauseMs, storyWaitMs, restartDelayMs, redisPersistence } = config;
  const { clockOffsetS } = config;
  const { retry, backend, etcdNodes, zkNodes, seed, resultsDir, stopOnLostUpdate, target } = config;
  return {
    argv,
    lock,
    nemesis,
    nemesisIntervalMs,
    timeLimitS,
    scenario,
    maxShots,
    concurrency,
    ttlMs,
    thinkMs,
    accounts,
    minWrites,
    maxStallMs,
    stopOnLostUpdate,
    fencing,
    watchdog,
    pauseMs,
    storyWaitMs,
    restartDelayMs,
    redisPersistence,
    retry,
    clockOffsetS,
    backend,
    etcdNodes,
    zkNodes,
    seed,
    resultsDir,
    target,
  };
}

function parse(argv: readonly string[], { elsewhere, subcommands, randomSeed }: ParseContext): Config {
  const { values: v, given } = parseArgv(argv, TABLE, {
    words: 'refuse',
    badWord: (arg) => {
      // A lock's name alone (`redlock`) or the verb other CLIs use (`run`): say what was meant.
      const meant = (BUILTIN_LOCKS as readonly string[]).includes(arg)
        ? ` Did you mean --lock=${arg}?`
        : arg === 'run'
          ? ' A run needs no verb: drop "run".'
          : didYouMean(arg, subcommands);
      return bad(
        `unexpected argument "${arg}". Subcommands: ${subcommands.join(', ')}; options start with --.${meant}`,
      );
    },
    elsewhere,
  });
  validateLock(v.lock);
  refuseAcrossModes(v.lock, given);
  return {
    command: 'run',
    help: v.help,
    runs: v.runs,
    matrix: v.matrix,
    verbose: v.verbose,
    thinkGiven: given.includes('think'),
    dryRun: v['dry-run'],
    ...runConfigOf(v, argv, randomSeed),
  };
}

export const run: CommandSpec<Config> = {
  summary: 'a test run',
  options: TABLE,
  parse,
};
