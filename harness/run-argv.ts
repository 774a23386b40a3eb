import fs from 'node:fs';
import path from 'node:path';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import { isPathRef, lockRef } from '../workloads/lock-ref.ts';
import type { RunConfig } from '../store/run-config.ts';
import { checkResultsFolder } from '../store/results-store.ts';
import { shownPath } from '../common/shown-path.ts';
import { deepFreeze, HELP_OPTION, type ParseContext, type RandomSeed } from './command-spec.ts';
import { bad, didYouMean, parseArgv, type OptionSpec, type OptionValues, type SpelledOption } from './option-table.ts';
import { cryptoSeed, RUN_ROWS, runConfigOf } from './options.ts';
import { FAULT_CATALOGUE, type FaultName } from '../faults/catalogue.ts';
import type { StoryStepId } from '../faults/fault-facts.ts';

/**
 * A test run's argv (no subcommand) → its Config: what the CLI's `run` (cli/commands/run.ts) parses with, and what
 * every floor that builds runs reaches a Config through — the gallery bench and the tests by an argv (resolveConfig);
 * the matrix's cells, the night, the benches, scenarios, replays and shrink candidates by typed options (runOf). So
 * it lives here, below them, not with the CLI's table. Its table is the run's rows (options.ts) and two of its own that
 * say how the run talks to the terminal, not what it tests (so not in the test record).
 */

/**
 * `fencepost [options]`: one test run, or with `--lock=all` the matrix. `runs` and `matrix` are --lock=all's
 * (their defaults otherwise: given with one lock they are refused); the test record keeps only the RunConfig part.
 */
export interface Config extends RunConfig {
  readonly command: 'run';
  readonly help: boolean;
  readonly runs: number;
  readonly matrix: 'all' | 'faults' | 'remedies' | 'margins';
  /** --rows: the matrix's rows to measure; null = every built-in lock. */
  readonly rows: readonly BuiltinLock[] | null;
  /** --verbose: each fault's raw record in the live log. */
  readonly verbose: boolean;
  /** --json: the summary as one JSON object on stdout (harness/run-json.ts), the human summary on stderr. */
  readonly json: boolean;
  /** The user gave --think: a fault that needs a wider critical section does not widen it (harness/run-plan.ts). */
  readonly thinkGiven: boolean;
  /** --dry-run: with --target, print what the run would execute and touch, and stop. */
  readonly dryRun: boolean;
  /**
   * Every option typed, the table's default where none was given: what a matrix cell's Config is built from, its
   * own values merged over them (matrix/cell-config.ts), never its argv parsed back.
   */
  readonly options: RunOptionValues;
  /** The options given, as spelled, in order (`argv` is their argv): what a cell keeps of its user's command line. */
  readonly spelled: readonly RunSpelling[];
}
export const RUN_OPTIONS = [
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
  {
    name: 'json',
    kind: 'bool',
    default: false,
    help: 'print the result as one JSON object on stdout (a run: its verdict, counts and files, docs/results.md; doctor: its report); the human summary goes to stderr',
  },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

/** A run's options, typed by its table. */
export type RunOptionValues = OptionValues<typeof RUN_OPTIONS>;
/** One option of a run as its command line spells it. */
export type RunSpelling = SpelledOption<(typeof RUN_OPTIONS)[number]['name']>;

function validateLock(lock: string): void {
  const ref = lockRef(lock);
  if (ref.kind === 'builtin' || ref.kind === 'all') return;
  // A lock in another language: its program is checked where it is loaded (workloads/foreign/manifest.ts).
  if (ref.kind === 'exec') return;
  if (isPathRef(ref)) {
    if (!fs.existsSync(path.resolve(ref.path)))
      throw bad(
        `--lock=${lock}: no such file (${shownPath(path.resolve(ref.path))}).`,
        ref.kind === 'plugin'
          ? 'a plugin lock is a .ts/.js module path; see docs/your-lock.md'
          : "a lock in another language is its manifest's path (.json); see docs/your-lock.md",
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
  const matrix = lockRef(lock).kind === 'all';
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
    if (matrix && name === 'json')
      throw bad(
        '--json with --lock=all: the matrix writes matrix.json (one object per cell) beside matrix.html in the results folder.',
        'drop --json and read matrix.json, or run one lock with --json',
      );
    if (!matrix && name === 'runs')
      throw bad(
        `--runs applies to --lock=all (runs per matrix cell); --lock=${lock} is one run.`,
        'drop --runs, or use --lock=all',
      );
    if (!matrix && name === 'rows')
      throw bad(
        `--rows applies to --lock=all (which locks' rows to measure); --lock=${lock} is one run.`,
        'drop --rows, or use --lock=all',
      );
    if (!matrix && name === 'matrix')
      throw bad(
        `--matrix applies to --lock=all (which tables to run); --lock=${lock} is one run.`,
        'drop --matrix, or use --lock=all',
      );
  }
}

/** The steps of a fault's story that another client must take: a run of one client can never complete them. */
const ANOTHER_CLIENTS_STEPS: readonly StoryStepId[] = ['other-wrote', 'granted'];

/**
 * A fault whose story needs another client to take the lock, asked of one client: every shot would end without its
 * story and the run UNKNOWN (exit 2) after its whole time limit, so it is refused before anything starts.
 */
function refuseLoneClient(nemesis: readonly FaultName[] | null, concurrency: number, scripted: boolean): void {
  if (concurrency >= 2 || scripted || nemesis === null) return;
  const needs = nemesis.filter((f) =>
    (FAULT_CATALOGUE[f].story ?? []).some((step) => ANOTHER_CLIENTS_STEPS.includes(step.id)),
  );
  if (!needs.length) return;
  throw bad(
    `--nemesis=${needs.join(',')} with --concurrency=1: ${needs.join(' and ')} ${needs.length > 1 ? 'need' : 'needs'} another client to take the lock while the holder is struck, and one client has no other: the run could only end UNKNOWN.`,
    'give --concurrency=2 or more (the default is 5), or a fault that needs no other client (pause-node, kill-holder, …)',
  );
}

/** The test record's `config`: the run's options and nothing of the CLI's (no command, help, matrix or nightly fields). */
export function runOptions(config: RunConfig): RunConfig {
  const { argv, lock, nemesis, nemesisIntervalMs, timeLimitS, concurrency, ttlMs, thinkMs, accounts } = config;
  const { scenario, maxShots } = config;
  const { minWrites, maxStallMs, fencing, watchdog, pauseMs, storyWaitMs, restartDelayMs, redisPersistence } = config;
  const { clockOffsetS, clockRate, redisServer } = config;
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
    redisServer,
    retry,
    clockOffsetS,
    clockRate,
    backend,
    etcdNodes,
    zkNodes,
    seed,
    resultsDir,
    target,
  };
}

/** `fencepost [options]`: the run's argv → its config (the results folder not yet resolved: parseCommandLine's). */
export function parseRun(argv: readonly string[], context: ParseContext): Config {
  const { values, spelled } = readRunArgv(argv, context);
  return runOf(values, spelled, context.randomSeed);
}

/**
 * A run's argv read against its table, each option checked alone (the refusals between options are runOf's): the
 * command line's, and a stored run's argv (a record) that a shrink candidate builds on, typed.
 */
export function readRunArgv(
  argv: readonly string[],
  { elsewhere, subcommands }: Pick<ParseContext, 'elsewhere' | 'subcommands'>,
): { values: RunOptionValues; spelled: readonly RunSpelling[] } {
  const { values, spelled } = parseArgv(argv, RUN_OPTIONS, {
    words: 'refuse',
    badWord: (arg) => {
      // A lock's name alone (`redlock`) or the verb other CLIs use (`run`): say what was meant.
      const meant = (BUILTIN_LOCKS as readonly string[]).includes(arg)
        ? ` Did you mean --lock=${arg}?`
        : arg === 'run'
          ? ' A run needs no verb: drop "run".'
          : didYouMean(arg, subcommands);
      // resolveConfig knows no subcommand: there a word is simply not a run's.
      const commands = subcommands.length ? `Subcommands: ${subcommands.join(', ')}` : "A run's argv has no subcommand";
      return bad(`unexpected argument "${arg}". ${commands}; options start with --.${meant}`);
    },
    elsewhere,
  });
  return { values, spelled };
}

/**
 * A run's Config from its typed options and how the given ones are spelled (its argv is theirs, in order): the
 * command line's parse ends here, and a matrix cell, built from its matrix's options and its own, starts here. The
 * refusals between options are made here, so a cell the CLI would refuse is refused alike.
 */
export function runOf(v: RunOptionValues, spelled: readonly RunSpelling[], randomSeed: RandomSeed): Config {
  const given = [...new Set(spelled.map((s) => s.name))];
  const argv = spelled.flatMap((s) => s.argv);
  validateLock(v.lock);
  refuseAcrossModes(v.lock, given);
  refuseLoneClient(v.nemesis, v.concurrency, v.scenario !== undefined);
  if (v.json && v['dry-run'])
    throw bad(
      '--json with --dry-run: a dry run prints a plan, not a result.',
      'drop --json, or --dry-run to run the test',
    );
  return {
    command: 'run',
    help: v.help,
    runs: v.runs,
    matrix: v.matrix,
    rows: v.rows,
    verbose: v.verbose,
    json: v.json,
    thinkGiven: given.includes('think'),
    dryRun: v['dry-run'],
    options: v,
    spelled,
    ...runConfigOf(v, argv, randomSeed),
  };
}

/**
 * A test run's config from its argv alone: what the gallery bench and the tests build runs with. The same parse as
 * the command line's, but it knows no subcommand: an option of another command is refused as unknown here (the
 * command line names where it belongs), a word as not a run's.
 */
export function resolveConfig(argv: readonly string[], randomSeed: RandomSeed = cryptoSeed): Readonly<Config> {
  return resolvedRun(parseRun(argv, { elsewhere: () => null, subcommands: [], randomSeed }));
}

/** A run's Config as it runs: its results folder resolved, frozen. */
export function resolvedRun(config: Config): Readonly<Config> {
  // From here on the folder is its resolved path: a link on the way is followed once, now, never again mid-run.
  if (!config.help) (config as { resultsDir: string }).resultsDir = checkResultsFolder(config.resultsDir);
  return deepFreeze(config);
}
