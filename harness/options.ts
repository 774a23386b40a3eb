import crypto from 'node:crypto';
import path from 'node:path';
import { FAULT_ALIASES, FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import { DEFAULT_MIN_WRITES } from '../checkers/check-run.ts';
import type { RunConfig } from '../store/run-config.ts';
import { runTiming, TIMING_RULES } from '../common/run-timing.ts';
import type { RandomSeed } from './command-spec.ts';
import { bad, didYouMean, type OptionSpec, type OptionValues } from './option-table.ts';

/**
 * A test run's options: one row each, in the order its help and refusals list them, and `runConfigOf`, which turns
 * their values into the test record's `config`. The subcommands take their rows from here (nightly all but the ones
 * it picks per cell, doctor the backend, …); each command's own table and parser are in its module,
 * cli/commands/<name>.ts (a run's in run-argv.ts).
 */

/** `--clock-rate`: a number of fake seconds per real second, above 0 (a frozen clock is no rate) and at most 100. */
function parseClockRate(raw: string): number {
  const r = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(r) || r <= 0 || r > 100)
    throw bad(`--clock-rate must be a number above 0 and at most 100 (1 = real speed), got "${raw}".`);
  return r;
}

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

/** --rows: the matrix rows to measure, in the order given; null = every built-in lock. */
function parseRows(raw: string): BuiltinLock[] | null {
  if (raw === 'all') return null;
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0)
    throw bad(`--rows=${raw} names no lock.`, 'give built-in lock names (--rows=sql-lease,etcd), or all');
  for (const n of names) {
    if (!(BUILTIN_LOCKS as readonly string[]).includes(n))
      throw bad(
        `--rows: "${n}" is not a built-in lock. Valid: ${BUILTIN_LOCKS.join(', ')}.${didYouMean(n, BUILTIN_LOCKS)}`,
        'the matrix has a row for each built-in lock; a plugin lock runs alone: --lock=./my-lock.ts',
      );
  }
  return names as BuiltinLock[];
}

/**
 * Extra runs a measured cell of --lock=all gets at most, one per inconclusive run, whichever way the oracle leans
 * (the matrix's rule; here because --runs' help states it, and the matrix imports the harness, not the reverse).
 */
export const MAX_RERUNS = 2;

/** A test run's rows, and --lock=all's (`runs`, `matrix`): `RunConfig` records every one but those two. */
export const RUN_ROWS = [
  {
    name: 'lock',
    value: 'lock',
    kind: 'string',
    default: 'redlock',
    completions: [...BUILTIN_LOCKS, 'all'],
    help: `the lock under test: a built-in (${BUILTIN_LOCKS.join(', ')}); all (the matrix); a plugin module ./my-lock.ts; a manifest ./my-lock.json; or exec:./program`,
  },
  {
    name: 'nemesis',
    value: 'fault,…|none',
    kind: 'string',
    default: 'default',
    defaultText: "the lock's own faults (its defaultFaults)",
    completions: [...FAULT_NAMES, 'none'],
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
    // One default per entry: the two rules (a plain pause, a fault that waits for its story) in it, not two "(default …)".
    defaultText: `${TIMING_RULES.pause}; ${TIMING_RULES.storyWait} for the faults that wait`,
    min: 1,
    max: 600_000,
    help: 'ms a pause fault keeps its target stopped; pause-holder, delay-write and kill-holder hold until another client took the lock and wrote (never less than the TTL), at most this long',
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
    name: 'redis-server',
    kind: 'enum',
    default: 'redis',
    choices: ['redis', 'valkey'],
    help: "which server binary fencepost's own Redis nodes run: redis (redis-server) or valkey (valkey-server, Debian's from bookworm-backports); its name and version go into the test record",
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
    name: 'clock-rate',
    value: 'r',
    kind: 'string',
    default: '2',
    help: 'clock-rate, clock-rate-client, clock-rate-waiters: how fast the struck clocks run (2 = twice real speed, 0.5 = half; 0 < r ≤ 100)',
    parse: parseClockRate,
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
    choices: ['all', 'faults', 'remedies', 'margins'],
    help: "--lock=all: which tables to run: the faults (lock × fault), the failure modes and remedies, each lock's clock-rate margins, or all",
  },
  {
    name: 'rows',
    value: 'lock,…',
    kind: 'string',
    default: 'all',
    defaultText: 'every built-in lock',
    completions: BUILTIN_LOCKS,
    help: "--lock=all: measure only these locks' rows (built-in names, comma-separated); `npm run findings` lays such a matrix over a whole one",
    parse: parseRows,
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
    help: 'test your own deployment: a target file naming its servers, credentials (by environment variable), key prefix and fault adapters (docs/targets.md); cleanup: delete the keys dead runs recorded under its prefix (others are listed, not deleted)',
  },
] as const satisfies readonly OptionSpec[];

export const cryptoSeed: RandomSeed = () => crypto.randomInt(0, 2 ** 31 - 1);

/** The run's options from the parsed values: the compiler checks that every RunConfig field is filled. */
export function runConfigOf(
  v: OptionValues<typeof RUN_ROWS>,
  argv: readonly string[],
  randomSeed: RandomSeed,
): RunConfig {
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
    redisServer: v['redis-server'],
    retry: v.retry,
    clockOffsetS: v['clock-offset'],
    clockRate: v['clock-rate'],
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
