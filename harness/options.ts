import { checkResultsFolder } from '../store/results-store.ts';
import crypto from 'node:crypto';
import { CLI } from '../common/cli-name.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAULT_ALIASES, FAULT_NAMES, type FaultName } from '../history/fault-names.ts';
import { BUILTIN_LOCKS, isPluginPath } from '../workloads/lock-names.ts';
import { DEFAULT_MIN_WRITES } from '../checkers/check-run.ts';
import { HarnessError } from '../common/errors.ts';
import type { RunConfig } from '../store/run-config.ts';
import { runTiming, TIMING_RULES } from '../common/run-timing.ts';
import { bad, didYouMean, parseArgv, type OptionSpec, type OptionValues } from './option-table.ts';

function parseNemesis(raw: string): FaultName[] | null {
  if (raw === 'default') return null;
  if (raw === 'none') return [];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((n) => (Object.hasOwn(FAULT_ALIASES, n) ? FAULT_ALIASES[n] : n));
  // `--nemesis=` or `--nemesis=,` named no fault: taking it as "no faults" would run a fault-free test the user did
  // not ask for (none says that on purpose).
  if (names.length === 0)
    throw bad(`--nemesis=${raw} names no fault.`, 'give fault names (--nemesis=pause-holder,kill), none, or default');
  for (const n of names) {
    if (!(FAULT_NAMES as string[]).includes(n))
      throw bad(`unknown fault "${n}". Valid: ${FAULT_NAMES.join(', ')}, none, default.${didYouMean(n, FAULT_NAMES)}`);
  }
  return [...new Set(names)] as FaultName[];
}

/** The most machines a night is split over (`--shard=<i>/<n>`, a shard's nightly.json, the reusable workflow's shards). */
export const MAX_SHARDS = 64;

/** `--shard=2/3` → { index: 2, count: 3 }. */
function parseShard(raw: string): { index: number; count: number } {
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(raw);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index < 1 || index > count)
    throw bad(
      `--shard must be <i>/<n> with 1 ≤ i ≤ n ≤ ${MAX_SHARDS}, got "${raw}".`,
      'e.g. --shard=1/3, --shard=2/3 and --shard=3/3 on three machines',
    );
  return { index, count };
}

/**
 * Extra runs a measured cell of --lock=all gets at most, one per inconclusive run, whichever way the oracle leans
 * (the matrix's rule; here because --runs' help states it, and the matrix imports the harness, not the reverse).
 */
export const MAX_RERUNS = 2;

/**
 * `nightly --parallel`'s default: two measured cells at once where there are two cores. Both tables at
 * --time-limit=10 on 2 cores: 24.6 min one cell at a time, 12.0 min two at a time with every cell matching
 * (docs/performance.md). Not more: a cell's latency figures include its neighbours' load.
 */
export const NIGHTLY_PARALLEL = Math.min(2, Math.max(1, os.availableParallelism()));

/**
 * Every option of the CLI, one row each (the order --help prints). Which subcommand takes which is `SUBCOMMANDS`
 * below; the values' types come from the rows (`OptionValues`).
 */
export const OPTIONS = [
  {
    name: 'lock',
    value: 'lock',
    kind: 'string',
    default: 'redlock',
    help: `the lock under test: a built-in (${BUILTIN_LOCKS.join(', ')}); all (the matrix); a plugin module ./my-lock.ts; a manifest ./my-lock.json; or exec:./program`,
  },
  {
    name: 'nemesis',
    value: 'fault,…|none',
    kind: 'string',
    default: 'default',
    defaultText: "the lock's own faults (its defaultFaults)",
    help: `the faults to inject, comma-separated (${FAULT_NAMES.join(', ')}; ${Object.entries(FAULT_ALIASES)
      .map(([a, f]) => `${a} = ${f}`)
      .join(', ')}), or none`,
    parse: parseNemesis,
  },
  {
    name: 'nemesis-interval',
    value: 'ms',
    kind: 'int',
    default: 3000,
    min: 100,
    // A day; and below 2^31 ms, past which Node's timers fire after 1 ms instead (faults back to back).
    max: 86_400_000,
    help: 'ms between the end of one fault and the start of the next',
  },
  { name: 'time-limit', value: 's', kind: 'int', default: 60, min: 1, max: 86_400, help: 'seconds the clients run' },
  {
    name: 'scenario',
    value: 'file',
    kind: 'string',
    defaultText: 'none: the clients run free',
    help: "a scripted scenario (scenarios/*.json, or a bundle's scenario.json): named clients take its steps one by one, each once the history shows the one before complete (docs/reproductions.md)",
  },
  {
    name: 'shots',
    value: 'n',
    kind: 'int',
    defaultText: 'as many as the run has time for',
    min: 1,
    max: 10_000,
    help: 'at most this many fault shots in the run (shrink reduces it)',
  },
  { name: 'concurrency', kind: 'int', default: 5, min: 1, max: 64, help: 'client processes' },
  {
    name: 'ttl',
    value: 'ms',
    kind: 'int',
    default: 2000,
    min: 100,
    max: 600_000,
    help: 'lock TTL / lease / session timeout in ms',
  },
  {
    name: 'think',
    value: 'ms',
    kind: 'int',
    default: 100,
    // One default, said once: help printed "(default 100; …) (default: 100)".
    defaultText:
      '100; 0.4 × ttl when the run has restart-empty or failover, whose stories need a section wider than a restart',
    min: 0,
    max: 600_000,
    help: 'ms a client spends between its read and its write',
  },
  {
    name: 'accounts',
    kind: 'int',
    default: 1,
    min: 1,
    max: 1000,
    help: 'accounts (lock keys) the clients spread over',
  },
  {
    name: 'min-writes',
    kind: 'int',
    default: DEFAULT_MIN_WRITES,
    min: 0,
    max: 1_000_000,
    help: 'committed writes (by ≥ 2 clients when --concurrency ≥ 2) a run needs to be VALID; fewer → unknown (exit 2)',
  },
  {
    name: 'max-stall',
    value: 'ms',
    kind: 'int',
    defaultText: 'none: liveness measured, not judged',
    min: 1,
    max: 86_400_000,
    help: 'ms the lock may stay free yet untaken while clients wait; a longer stall fails the liveness checker (INVALID, named apart from lost updates)',
  },
  {
    name: 'stop-on-lost-update',
    kind: 'bool',
    default: false,
    help: 'end the run at its first lost update (two committed writes, one blind to the other), not at --time-limit; the checkers then decide from the ledger. A run cut short that they find no lost update in is unknown, never VALID (nightly: on by default)',
  },
  {
    name: 'fencing',
    kind: 'bool',
    default: false,
    help: "writes carry the lock's fencing token; the resource refuses stale tokens",
  },
  {
    name: 'watchdog',
    kind: 'bool',
    default: false,
    help: `locks whose lease the client renews (redis, redlock, redlock-npm): renew every ${TIMING_RULES.watchdog}, skip the write when a renewal fails (Redisson-style)`,
  },
  {
    name: 'pause',
    value: 'ms',
    kind: 'int',
    defaultText: TIMING_RULES.pause,
    min: 1,
    max: 600_000,
    help: `ms a pause fault keeps its target stopped; pause-holder, delay-write and kill-holder hold until another client took the lock and wrote (never less than the TTL), at most this long (default ${TIMING_RULES.storyWait})`,
  },
  {
    name: 'restart-delay',
    value: 'ms',
    kind: 'int',
    default: 0,
    min: 0,
    max: 600_000,
    help: 'restart-empty, kill: ms a killed node stays down (Redlock spec: ≥ max TTL)',
  },
  {
    name: 'redis-persistence',
    kind: 'enum',
    default: 'none',
    choices: ['none', 'aof-always'],
    help: 'Redis persistence (aof-always = appendfsync always)',
  },
  {
    name: 'retry',
    kind: 'enum',
    default: 'library',
    choices: ['library', 'harness'],
    help: "who retries a refused acquire: library = the lock library's own loop with its documented defaults; harness = one library attempt per try in a loop of ours (redlock-npm: the workaround for the package's loop, which livelocks after a majority restart)",
  },
  {
    name: 'clock-offset',
    value: 's',
    kind: 'int',
    default: 60,
    min: 1,
    max: 86_400,
    help: 'clock faults: seconds to jump',
  },
  {
    name: 'etcd-nodes',
    value: '3|5',
    kind: 'int',
    defaultText: "the lock's own servers, else 3",
    min: 3,
    max: 5,
    help: 'members of the etcd cluster a lock on etcd runs on: 3 or 5 (majorities-ring needs 5)',
  },
  {
    name: 'zk-nodes',
    value: '3|5',
    kind: 'int',
    defaultText: "the lock's own servers, else 3",
    min: 3,
    max: 5,
    help: 'servers of the ZooKeeper ensemble a lock on ZooKeeper runs on: 3 or 5 (majorities-ring needs 5)',
  },
  {
    name: 'backend',
    kind: 'enum',
    default: 'local',
    choices: ['local', 'docker'],
    help: 'where servers run: local child processes, or one container per node (needs a Docker engine)',
  },
  {
    name: 'runs',
    kind: 'int',
    default: 1,
    min: 1,
    max: 20,
    help: `--lock=all: conclusive runs per measured cell (each inconclusive run is replaced, at most ${MAX_RERUNS} more); 1 keeps the matrix to minutes on 2 cores`,
  },
  {
    name: 'matrix',
    kind: 'enum',
    default: 'all',
    choices: ['all', 'faults', 'remedies'],
    help: '--lock=all: which tables to run: the faults (lock × fault), the failure modes and remedies, or both',
  },
  {
    name: 'seed',
    kind: 'int',
    defaultText: 'random',
    min: 0,
    max: 2 ** 31 - 1,
    help: 'random seed (printed; pass it back to replay the schedule)',
  },
  { name: 'results', value: 'dir', kind: 'string', default: 'results', help: 'results folder' },
  {
    name: 'target',
    kind: 'string',
    defaultText: "none: fencepost's own servers",
    help: 'test your own deployment: a target file naming its servers, credentials (by environment variable), key prefix and fault adapters (docs/targets.md); cleanup: remove the keys a dead run left under its prefix',
  },
  {
    name: 'dry-run',
    kind: 'bool',
    default: false,
    help: 'with --target: print every command the run would execute on the target and every key it would touch, then stop',
  },
  {
    name: 'shard',
    value: 'i>/<n',
    kind: 'string',
    defaultText: 'all cells',
    help: 'nightly: run only shard <i>/<n> of the measured cells (split by time: each cell, heaviest first, to the lightest shard)',
    parse: parseShard,
  },
  {
    name: 'baseline',
    value: 'dir',
    kind: 'string',
    defaultText: 'none',
    help: 'nightly: a previous nightly results folder to compare tonight against',
  },
  {
    name: 'expectations',
    value: 'file',
    kind: 'string',
    defaultText: './fencepost.expectations.json if it exists',
    help: 'nightly: your expectations file (overrides oracle cells, adds your plugin locks)',
  },
  {
    name: 'known-bugs',
    kind: 'string',
    defaultText: './fencepost.known-bugs if it exists',
    help: 'nightly: a folder of your known bugs (repro bundles or scenario files); each is replayed and must still reproduce',
  },
  {
    name: 'parallel',
    kind: 'int',
    default: NIGHTLY_PARALLEL,
    defaultText: '2 (1 on a one-core machine)',
    min: 1,
    max: 8,
    help: "nightly: measured cells run at once on this machine, each with its own cluster and ports (2 on 2 cores about halves the night; latency figures then include the neighbour's load; 1: one cell at a time)",
  },
  {
    name: 'cells',
    kind: 'enum',
    default: 'all',
    choices: ['all', 'expectations'],
    help: "nightly: the oracle's matrix with your expectations applied, or only your expectations file's cells (your locks)",
  },
  {
    name: 'emit',
    kind: 'enum',
    choices: ['kubernetes'],
    defaultText: 'none: run the night here',
    help: 'nightly: write the night as a Kubernetes Indexed Job (one pod per shard) plus its merge step, to stdout, instead of running it',
  },
  {
    name: 'image',
    kind: 'string',
    defaultText: 'none (required with --emit)',
    help: 'nightly --emit: the published image the pods run (fencepost and its servers installed, `fencepost` on PATH)',
  },
  {
    name: 'shards',
    kind: 'int',
    default: 4,
    min: 1,
    max: 100,
    help: 'nightly --emit: how many shards (pods) the night is split into',
  },
  { name: 'json', kind: 'bool', default: false, help: 'doctor: print JSON instead of a table' },
  {
    name: 'data',
    kind: 'bool',
    default: false,
    help: 'cleanup: also remove the node data (nodes/) of runs whose harness is gone',
  },
  {
    name: 'port',
    value: 'port',
    kind: 'int',
    defaultText: '8080, or a free port if that is taken',
    min: 1,
    max: 65_535,
    help: 'serve: port on 127.0.0.1 (given explicitly, it must be free)',
  },
  {
    name: 'verbose',
    kind: 'bool',
    default: false,
    help: "the live log prints each fault's raw start and end record (its JSON parameters) instead of one sentence",
  },
  {
    name: 'help',
    kind: 'bool',
    default: false,
    help: "print this help (a subcommand's own with `<subcommand> --help`)",
  },
] as const satisfies readonly OptionSpec[];

type OptionName = (typeof OPTIONS)[number]['name'];
const ROW = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));
/** The rows named, in the table's order, typed as their own tuple (so OptionValues knows each one). */
function rows<const N extends readonly OptionName[]>(
  names: N,
): Extract<(typeof OPTIONS)[number], { name: N[number] }>[] {
  return OPTIONS.filter((o) => (names as readonly string[]).includes(o.name)) as Extract<
    (typeof OPTIONS)[number],
    { name: N[number] }
  >[];
}

/** A test run's own options: exactly what `RunConfig` (the test record's `config`) records. */
const RUN_OPTION_NAMES = [
  'lock',
  'nemesis',
  'nemesis-interval',
  'time-limit',
  'scenario',
  'shots',
  'concurrency',
  'ttl',
  'think',
  'accounts',
  'min-writes',
  'max-stall',
  'stop-on-lost-update',
  'fencing',
  'watchdog',
  'pause',
  'restart-delay',
  'redis-persistence',
  'retry',
  'clock-offset',
  'etcd-nodes',
  'zk-nodes',
  'backend',
  'seed',
  'results',
  'target',
] as const;
/** --lock=all's own: how many runs a cell gets and which tables. */
const MATRIX_OPTION_NAMES = ['runs', 'matrix'] as const;
const NIGHTLY_OWN_NAMES = [
  'shard',
  'baseline',
  'expectations',
  'known-bugs',
  'cells',
  'parallel',
  'emit',
  'image',
  'shards',
] as const;
/** The nightly job picks the locks, faults and fencing of every cell itself. */
const NIGHTLY_PICKS = ['lock', 'nemesis', 'fencing', 'target'] as const;

/** How a run talks to the terminal: not part of what it tests, so not in the test record. */
const RUN_DISPLAY_NAMES = ['verbose'] as const;
const RUN_TABLE = rows([...RUN_OPTION_NAMES, ...MATRIX_OPTION_NAMES, ...RUN_DISPLAY_NAMES, 'dry-run', 'help']);
/** Every run option but NIGHTLY_PICKS: each cell runs with them (nightly.ts, `nightlySettings`). */
type NightlyPick = (typeof NIGHTLY_PICKS)[number];
const notPicked = <N extends OptionName>(n: N): n is Exclude<N, NightlyPick> =>
  !(NIGHTLY_PICKS as readonly string[]).includes(n);
const NIGHTLY_TABLE = rows([
  ...RUN_OPTION_NAMES.filter(notPicked),
  ...MATRIX_OPTION_NAMES,
  ...NIGHTLY_OWN_NAMES,
  'help',
]);
const DOCTOR_TABLE = rows(['backend', 'results', 'json', 'help']);
const CLEANUP_TABLE = rows(['results', 'data', 'target', 'help']);
const SERVE_TABLE = rows(['results', 'port', 'help']);
const INIT_TABLE = rows(['help']);
const LOCK_CHECK_TABLE = rows(['backend', 'results', 'help']);
const TARGET_TABLE = rows(['help']);

/** The subcommands, each with the line --help lists it with (its own help: harness/command-help.ts). */
export const SUBCOMMANDS = {
  init: 'a starter lock plugin, expectations file and nightly workflow for your project, here',
  doctor: 'check the servers, boot the whole cluster once, print versions and boot times',
  check: 're-check a stored run from its history, or a history file against a model',
  compare: 'two or more runs side by side → compare.html',
  'lock-check': "a lock in another language against the lock-client protocol's contract",
  cleanup: 'stop what runs killed with kill -9 left behind',
  serve: 'serve the results folder on 127.0.0.1 for a browser',
  repro: 'a failing run as a reproduction anyone can run: a bundle folder and .tgz',
  replay: "a bundle's or scenario's scripted story run N times → its reproduction rate",
  shrink: 'the smallest configuration that still fails the same way, with its rate and bundle',
  target: 'connect to your own servers, prove the credentials are fenced to its key prefix, list what a run touches',
  nightly: 'the matrix with your expectations, compared with last night → junit.xml, summary.md',
} as const;
export type Subcommand = keyof typeof SUBCOMMANDS | 'run';

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
export interface NightlyConfig {
  readonly command: 'nightly';
  readonly help: boolean;
  readonly argv: readonly string[];
  /** `merge <dir>…`, or nothing. */
  readonly rest: readonly string[];
  readonly seed: number;
  readonly resultsDir: string;
  readonly backend: 'local' | 'docker';
  /** This machine's slice of the measured cells, 1-based; null = every cell. */
  readonly shard: { index: number; count: number } | null;
  /** The previous night's results folder. */
  readonly baseline: string | null;
  /** The user's expectations file, as given (null = the default name, if that file exists). */
  readonly expectations: string | null;
  /** The oracle's matrix with the expectations applied (`all`), or only the expectations file's cells. */
  readonly cells: 'all' | 'expectations';
  /** Measured cells run at once (each its own cluster and clients). */
  readonly parallel: number;
  /** The folder of the user's known bugs (bundles, scenario files), as given; null = the default name, if it exists. */
  readonly knownBugs: string | null;
  /** --emit: write the night as a Kubernetes Indexed Job instead of running it. */
  readonly emit: 'kubernetes' | null;
  /** --image: what the emitted pods run. */
  readonly image: string | null;
  /** --shards: the emitted Job's completions. */
  readonly shards: number;
}
export interface DoctorConfig {
  readonly command: 'doctor';
  readonly help: boolean;
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
  readonly json: boolean;
}
export interface CleanupConfig {
  readonly command: 'cleanup';
  readonly help: boolean;
  readonly resultsDir: string;
  /** Also remove the node data of dead runs. */
  readonly data: boolean;
  /** --target: also remove the keys under that target's prefix, when no live run of ours uses it. */
  readonly target: string | null;
}
export interface ServeConfig {
  readonly command: 'serve';
  readonly help: boolean;
  readonly resultsDir: string;
  /** The port asked for, or null for 8080-else-free. */
  readonly port: number | null;
}
/** `check` and `compare` read their own arguments (check-command.ts: `parseCheckArgs`; compare-command.ts). */
export interface PassThroughConfig {
  readonly command: 'check' | 'compare' | 'repro' | 'replay' | 'shrink';
  /** `--help` or `-h` among the arguments: the command's own help, exit 0. */
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly resultsDir: string;
}
/** `lock-check <manifest | exec:program>`: the lock in `rest`, the cluster it starts on `backend`. */
export interface LockCheckConfig {
  readonly command: 'lock-check';
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
}
/** `target check <file>`: the words in `rest`. */
export interface TargetConfig {
  readonly command: 'target';
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly resultsDir: string;
}
export interface InitConfig {
  readonly command: 'init';
  readonly help: boolean;
}
/** What the command line says: one subcommand and only the options that subcommand takes. */
export type CommandLine =
  | Config
  | NightlyConfig
  | DoctorConfig
  | CleanupConfig
  | ServeConfig
  | PassThroughConfig
  | LockCheckConfig
  | TargetConfig
  | InitConfig;

/** The subcommand a literal argv names (its first word), so `parseCommandLine(['serve', …])` is a ServeConfig. */
type CommandOf<A extends readonly string[]> = A extends readonly [
  infer F extends keyof typeof SUBCOMMANDS,
  ...unknown[],
]
  ? F
  : A extends readonly [] | readonly [`--${string}`, ...unknown[]]
    ? 'run'
    : Subcommand;
type CommandConfig<C extends Subcommand> = Extract<CommandLine, { command: C }>;

const SUBCOMMAND_TABLES = [
  ['nightly', NIGHTLY_TABLE],
  ['doctor', DOCTOR_TABLE],
  ['lock-check', LOCK_CHECK_TABLE],
  ['cleanup', CLEANUP_TABLE],
  ['serve', SERVE_TABLE],
  ['target', TARGET_TABLE],
] as const;

/** Where an option belongs, for the refusal of one given elsewhere: "a test run and the nightly subcommand". */
function ownersOf(name: string): { words: string; only: string | null } {
  const run = RUN_TABLE.some((o) => o.name === name);
  const subs = SUBCOMMAND_TABLES.filter(([, t]) => t.some((o) => o.name === name)).map(([cmd]) => cmd);
  const words = [
    ...(run ? ['a test run'] : []),
    ...(subs.length ? [`the ${subs.join('/')} subcommand${subs.length > 1 ? 's' : ''}`] : []),
  ].join(' and ');
  return { words, only: !run && subs.length === 1 ? subs[0] : null };
}

/** An option of another subcommand given to `command`: the refusal names where it belongs. */
function elsewhere(command: Subcommand) {
  return (name: string): HarnessError | null => {
    if (!ROW.has(name)) return null;
    if (command === 'nightly' && (NIGHTLY_PICKS as readonly string[]).includes(name))
      return bad(
        `--${name} with nightly: the nightly job runs the whole matrix (every lock × the oracle's faults, fenced where a lock has a token).`,
        'drop it; to change what a cell is expected to show or add your own lock, use an expectations file (docs/nightly.md)',
      );
    const owners = ownersOf(name);
    return bad(
      `--${name} applies to ${owners.words}${command === 'run' || owners.only ? '' : `, not ${command}`}.`,
      owners.only ? `${CLI} ${owners.only} --${name}${ROW.get(name)!.kind === 'bool' ? '' : '=…'}` : undefined,
    );
  };
}

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

function deepFreeze<T>(o: T): Readonly<T> {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

type RunValues = OptionValues<typeof RUN_TABLE>;
type RandomSeed = () => number;
const cryptoSeed: RandomSeed = () => crypto.randomInt(0, 2 ** 31 - 1);

/** The run's options from the parsed values: the compiler checks that every RunConfig field is filled. */
function runConfigOf(v: RunValues, argv: readonly string[], randomSeed: RandomSeed): RunConfig {
  return {
    argv: [...argv],
    lock: v.lock,
    nemesis: v.nemesis,
    nemesisIntervalMs: v['nemesis-interval'],
    timeLimitS: v['time-limit'],
    scenario: v.scenario ?? null,
    maxShots: v.shots ?? null,
    concurrency: v.concurrency,
    ttlMs: v.ttl,
    thinkMs: v.think,
    accounts: v.accounts,
    minWrites: v['min-writes'],
    maxStallMs: v['max-stall'] ?? null,
    stopOnLostUpdate: v['stop-on-lost-update'],
    fencing: v.fencing,
    watchdog: v.watchdog,
    pauseMs: runTiming({ ttlMs: v.ttl, pauseMs: v.pause }).pauseMs,
    storyWaitMs: runTiming({ ttlMs: v.ttl, pauseMs: v.pause }).storyWaitMs,
    restartDelayMs: v['restart-delay'],
    redisPersistence: v['redis-persistence'],
    retry: v.retry,
    clockOffsetS: v['clock-offset'],
    backend: v.backend,
    etcdNodes: ensembleSize('etcd-nodes', v['etcd-nodes']),
    zkNodes: ensembleSize('zk-nodes', v['zk-nodes']),
    seed: v.seed ?? randomSeed(),
    resultsDir: path.resolve(v.results),
    target: v.target !== undefined ? path.resolve(v.target) : null,
  };
}

/** An even ensemble tolerates no more failures than the odd one below it: Jepsen's sizes only. */
function ensembleSize(name: 'etcd-nodes' | 'zk-nodes', n: number | undefined): number | null {
  if (n === undefined) return null;
  if (n !== 3 && n !== 5) throw bad(`--${name}=${n}: an ensemble of 3 or 5 members`, `use --${name}=3 or --${name}=5`);
  return n;
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

function runCommand(argv: readonly string[], randomSeed: RandomSeed): Config {
  const { values: v, given } = parseArgv(argv, RUN_TABLE, {
    words: 'refuse',
    badWord: (arg) => {
      // A lock's name alone (`redlock`) or the verb other CLIs use (`run`): say what was meant.
      const meant = (BUILTIN_LOCKS as readonly string[]).includes(arg)
        ? ` Did you mean --lock=${arg}?`
        : arg === 'run'
          ? ' A run needs no verb: drop "run".'
          : didYouMean(arg, Object.keys(SUBCOMMANDS));
      return bad(
        `unexpected argument "${arg}". Subcommands: ${Object.keys(SUBCOMMANDS).join(', ')}; options start with --.${meant}`,
      );
    },
    elsewhere: elsewhere('run'),
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

function nightlyCommand(argv: readonly string[], randomSeed: RandomSeed): NightlyConfig {
  // `nightly merge <dir>…`: the subcommand's words and folders; options still parse.
  const { values: v, words } = parseArgv(argv.slice(1), NIGHTLY_TABLE, {
    words: 'collect',
    elsewhere: elsewhere('nightly'),
  });
  return {
    command: 'nightly',
    help: v.help,
    argv: [...argv],
    rest: words,
    seed: v.seed ?? randomSeed(),
    resultsDir: path.resolve(v.results),
    backend: v.backend,
    shard: v.shard ?? null,
    baseline: v.baseline !== undefined ? path.resolve(v.baseline) : null,
    expectations: v.expectations !== undefined ? path.resolve(v.expectations) : null,
    cells: v.cells,
    parallel: v.parallel,
    knownBugs: v['known-bugs'] !== undefined ? path.resolve(v['known-bugs']) : null,
    emit: v.emit ?? null,
    image: v.image ?? null,
    shards: v.shards,
  };
}

function otherCommand(command: Exclude<Subcommand, 'run' | 'nightly'>, args: readonly string[]): CommandLine {
  // check, compare and the reproduction commands read their own arguments (check through CHECK_OPTIONS, compare its
  // run folders, repro/replay/shrink theirs).
  if (isPassThrough(command)) {
    const help = args.some((a) => a === '--help' || a === '-h');
    return { command, help, rest: [...args], resultsDir: path.resolve('results') };
  }
  const rules = {
    words: 'refuse',
    badWord: (arg: string) => bad(`unexpected argument "${arg}" after ${command}.`, `${CLI} ${command} --help`),
    elsewhere: elsewhere(command),
  } as const;
  switch (command) {
    case 'doctor': {
      const { values: v } = parseArgv(args, DOCTOR_TABLE, rules);
      return { command, help: v.help, backend: v.backend, resultsDir: path.resolve(v.results), json: v.json };
    }
    case 'cleanup': {
      const { values: v } = parseArgv(args, CLEANUP_TABLE, rules);
      return {
        command,
        help: v.help,
        resultsDir: path.resolve(v.results),
        data: v.data,
        target: v.target !== undefined ? path.resolve(v.target) : null,
      };
    }
    case 'serve': {
      const { values: v } = parseArgv(args, SERVE_TABLE, rules);
      return { command, help: v.help, resultsDir: path.resolve(v.results), port: v.port ?? null };
    }
    case 'lock-check': {
      const { values: v, words } = parseArgv(args, LOCK_CHECK_TABLE, { ...rules, words: 'collect' });
      return { command, help: v.help, rest: words, backend: v.backend, resultsDir: path.resolve(v.results) };
    }
    case 'target': {
      const { values: v, words } = parseArgv(args, TARGET_TABLE, { ...rules, words: 'collect' });
      return { command, help: v.help, rest: words, resultsDir: path.resolve('results') };
    }
    case 'init':
      return { command, help: parseArgv(args, INIT_TABLE, rules).values.help };
  }
}

/**
 * argv (what follows `npm run jepsen --`) → the subcommand and a complete, frozen config of only the options it
 * takes (the seed chosen), or a HarnessError of kind `bad-arguments` (exit 254) before anything has started.
 */
export function parseCommandLine<const A extends readonly string[]>(
  argv: A,
  randomSeed: RandomSeed = cryptoSeed,
): Readonly<CommandConfig<CommandOf<A>>> {
  const first = argv[0];
  const command: Subcommand = first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? (first as Subcommand) : 'run';
  const config =
    command === 'run'
      ? runCommand(argv, randomSeed)
      : command === 'nightly'
        ? nightlyCommand(argv, randomSeed)
        : otherCommand(command, argv.slice(1));
  // Every command that writes into or acts on the results folder; the pass-through commands take run folders instead.
  // From here on the folder is its resolved path: a link on the way is followed once, now, never again mid-run.
  if (!config.help && 'resultsDir' in config && !isPassThrough(command))
    (config as { resultsDir: string }).resultsDir = checkResultsFolder(config.resultsDir);
  return deepFreeze(config) as CommandConfig<CommandOf<A>>;
}

function isPassThrough(command: Subcommand): command is 'check' | 'compare' | 'repro' | 'replay' | 'shrink' {
  return ['check', 'compare', 'repro', 'replay', 'shrink'].includes(command);
}

/** A test run's config from its argv (no subcommand): what the matrix, the benches and the tests build runs with. */
export function resolveConfig(argv: readonly string[], randomSeed: RandomSeed = cryptoSeed): Readonly<Config> {
  const config = parseCommandLine(argv, randomSeed);
  if (config.command !== 'run')
    throw bad(`"${config.command}" is a subcommand; a run's argv starts with its options (--lock=…).`);
  return config;
}

/** The options `command` takes, in the table's order (--help lists them; `check` has its own: check-options.ts). */
export function commandOptions(
  command: Exclude<Subcommand, 'check' | 'compare' | 'repro' | 'replay' | 'shrink'>,
): readonly OptionSpec[] {
  if (command === 'run') return RUN_TABLE;
  if (command === 'init') return INIT_TABLE;
  return SUBCOMMAND_TABLES.find(([name]) => name === command)![1];
}
