import type { FaultName } from '../history/fault-names.ts';
import { optionShown, type RunOptionName, type RunOverrides } from '../harness/run-overrides.ts';
import type { BuiltinLock } from '../workloads/lock-names.ts';
import {
  construction,
  measured,
  type LivenessExpectation,
  type OracleCell,
  type RemedyScenarioId,
} from '../locks/oracle-cell.ts';
import { NO_HARNESS_RETRY, NO_LOCK, NO_PAIR, NO_REDIS, NO_TOKEN, NO_WATCHDOG } from '../locks/shared-cells.ts';
import { NPM_LIBRARY_REMEDY_ROWS } from './remedy-oracle-npm-rows.ts';

/**
 * The matrix's second table: the failure modes known to break a lock beyond the fault columns, and the remedies
 * usually recommended for them (docs/matrix.md), each as a scenario (faults + the run options that make it) with an expectation per lock. Decided
 * by the same rules as the fault table (matrix/oracle.ts): measured cells get the same number of runs,
 * inconclusive runs are replaced, and cells no run could inform are decided by construction, with a reason.
 */
export interface RemedyScenario {
  id: RemedyScenarioId;
  title: string;
  faults: FaultName[];
  fencing: boolean;
  /** Run options the scenario sets (later on the cell's argv than the user's, so they win). */
  overrides: RunOverrides;
  /**
   * Options the scenario decides: the user's value for them is dropped. Every scenario owns the remedies'
   * switches, so a `--watchdog` given to `--lock=all` cannot turn "long work without a watchdog" into its remedy.
   */
  owns: readonly RunOptionName[];
  maxIntervalMs?: number;
  minThinkTtlFraction?: number;
  /** Lower bound on --restart-delay, as a fraction of the cell's TTL (the spec's remedy: stay down ≥ TTL). */
  minRestartDelayTtlFraction?: number;
  /**
   * Lower bound on --time-limit, for scenarios that commit slowly, so a cell that should be safe can reach the 10
   * committed writes a VALID verdict requires: long work commits one write every ~2.6 s (→ 30 s); a restart that
   * stays down a TTL leaves the lock unavailable for that long (redlock-npm: 6–7 writes in 10 s, three runs in a
   * row, → 20 s).
   */
  minTimeLimitS?: number;
}

const REMEDY_SWITCHES: readonly RunOptionName[] = ['watchdog', 'restart-delay', 'redis-persistence', 'retry'];
/** Long work: a critical section (2.5 s) longer than the lease (1 s), with nothing else going wrong. */
const LONG_WORK: RunOverrides = { thinkMs: 2500, ttlMs: 1000 };
const LONG_WORK_OWNS: readonly RunOptionName[] = [...REMEDY_SWITCHES, 'think', 'ttl'];

export const REMEDY_SCENARIOS: readonly RemedyScenario[] = [
  // A section wider than the failover: the promoted replica serves the clients 150–250 ms after the primary's kill
  // here, so with the default 100 ms think the holder has always written before anyone else could be granted — the
  // double grant then reads the holder's write, and its story is not whole (checkers/fault-hits/server-story.ts).
  {
    id: 'failover',
    title: 'failover (primary → replica)',
    faults: ['failover'],
    fencing: false,
    overrides: {},
    owns: REMEDY_SWITCHES,
    minThinkTtlFraction: 0.4,
  },
  {
    id: 'long-work',
    title: 'long work > TTL',
    faults: [],
    fencing: false,
    overrides: LONG_WORK,
    owns: LONG_WORK_OWNS,
    minTimeLimitS: 30,
  },
  {
    id: 'long-work-watchdog',
    title: 'long work > TTL, --watchdog',
    faults: [],
    fencing: false,
    overrides: { ...LONG_WORK, watchdog: true },
    owns: LONG_WORK_OWNS,
    minTimeLimitS: 30,
  },
  // pause-holder, with --watchdog, strikes only a section whose write falls due before the holder's next renewal, so
  // after SIGCONT the overdue write runs before the overdue renewal (the GC-pause story). Struck anywhere it was a
  // race, shot by shot (redlock, seed 42: one 10 s run lost 2 of 2 shots, the next 0 of 2). More shots per run: a
  // pause every ~4 s for at least 20 s.
  {
    id: 'pause-watchdog',
    title: 'holder paused > TTL, --watchdog',
    faults: ['pause-holder'],
    fencing: false,
    overrides: { watchdog: true },
    owns: REMEDY_SWITCHES,
    maxIntervalMs: 1000,
    minTimeLimitS: 20,
  },
  // As the fault table's restart-empty column: fire often, and a section wider than a restart (oracle.ts says why).
  {
    id: 'restart-delay',
    title: 'restart empty, --restart-delay ≥ TTL',
    faults: ['restart-empty'],
    fencing: false,
    overrides: {},
    owns: REMEDY_SWITCHES,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
    minRestartDelayTtlFraction: 1,
    minTimeLimitS: 20,
  },
  // The fault table's restart-empty cell again, with the strategy's own retry loop in place of its library's: the
  // workaround for redlock-npm's livelock (oracle.ts, REDLOCK_NPM_LIVELOCK). Only its liveness is remedied: the
  // restart still has no delay, so updates are still lost.
  {
    id: 'restart-retry',
    title: 'restart empty, --retry=harness',
    faults: ['restart-empty'],
    fencing: false,
    overrides: { retry: 'harness' },
    owns: REMEDY_SWITCHES,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  {
    id: 'restart-aof',
    title: 'restart, --redis-persistence=aof-always',
    faults: ['restart-empty'],
    fencing: false,
    overrides: { redisPersistence: 'aof-always' },
    owns: REMEDY_SWITCHES,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  {
    id: 'delay-write',
    title: 'delayed write',
    faults: ['delay-write'],
    fencing: false,
    overrides: {},
    owns: REMEDY_SWITCHES,
  },
  {
    id: 'delay-write-fenced',
    title: 'delayed write, --fencing',
    faults: ['delay-write'],
    fencing: true,
    overrides: {},
    owns: REMEDY_SWITCHES,
  },
  // The failover with a fence whose token comes from the same Redis (simple-redis-mutex's INCR counter): the promoted
  // replica's counter is as far behind as its keys. Only a Redis row with a token is measured here.
  {
    id: 'failover-fenced',
    title: 'failover, --fencing',
    faults: ['failover'],
    fencing: true,
    overrides: {},
    owns: REMEDY_SWITCHES,
  },
];

const NO_RETRY_REMEDY = construction('refuse', NO_HARNESS_RETRY);

/** redlock-npm with our loop around single package attempts: each failed try releases its partial locks at once. */
const RETRY_RECOVERS: LivenessExpectation = {
  expect: 'recovers',
  reason:
    'each try is one package round (retryCount 0), whose failure releases its partial locks at once, and the next try comes 100 ± 50 ms later: split votes last one round, not a TTL',
};

type Row = Record<RemedyScenarioId, OracleCell>;

const redisLike = (failover: OracleCell, watchdog: boolean): Row => ({
  failover,
  'long-work': measured('lost'),
  'long-work-watchdog': watchdog ? measured('safe') : construction('refuse', NO_WATCHDOG),
  // The watchdog cannot renew while its process is stopped: the lease runs out and the resumed holder writes.
  'pause-watchdog': watchdog ? measured('lost') : construction('refuse', NO_WATCHDOG),
  'restart-delay': measured('safe'),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': measured('safe'),
  'delay-write': measured('lost'),
  'delay-write-fenced': construction('refuse', NO_TOKEN),
  'failover-fenced': failover.expect === 'n/a' ? failover : construction('refuse', NO_TOKEN),
});

/** A lock with a fencing token and a lease kept alive by its client library (etcd keep-alives, ZooKeeper pings). */
const tokenLock = (): Row => ({
  failover: construction('n/a', NO_PAIR),
  // The library renews the lease/session every TTL/3 by itself: long work does not outlive it.
  'long-work': measured('safe'),
  'long-work-watchdog': construction('refuse', NO_WATCHDOG),
  'pause-watchdog': construction('refuse', NO_WATCHDOG),
  'restart-delay': construction('n/a', NO_REDIS),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': construction('n/a', NO_REDIS),
  'delay-write': measured('lost'),
  'delay-write-fenced': measured('safe'),
  'failover-fenced': construction('n/a', NO_PAIR),
});

export const REMEDY_ORACLE: Record<BuiltinLock, Row> = {
  none: {
    failover: construction('lost', NO_LOCK),
    'long-work': construction('lost', NO_LOCK),
    'long-work-watchdog': construction('refuse', NO_WATCHDOG),
    'pause-watchdog': construction('refuse', NO_WATCHDOG),
    'restart-delay': construction('lost', `${NO_LOCK}; and it runs no Redis`),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('lost', `${NO_LOCK}; and it runs no Redis`),
    'delay-write': construction('lost', NO_LOCK),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  redis: redisLike(measured('lost'), true),
  redlock: redisLike(
    construction(
      'n/a',
      `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
    ),
    true,
  ),
  // The package as its README uses it; its remedy cell swaps its retry loop for ours (the users' workaround).
  'redlock-npm': {
    ...redisLike(
      construction(
        'n/a',
        `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
      ),
      true,
    ),
    // Long work with --watchdog under the package's own loop: it measures a lock's validity from its *first* attempt
    // (mike-marcacci/node-redlock#299), and its 10 retries (~2 s) outlast this scenario's 1 s TTL, so a lock won
    // after a few retries comes back already expired (validityMs 0): the watchdog cannot extend it ("Cannot extend
    // an already-expired lock") and the client skips its write. The holder that releases and at once reacquires
    // wins on its first attempt and writes everything (seed 42: client 4 committed all 8 writes; 10 of 18 acquires
    // came back with validity ≤ 126 ms, 7 with 0). No lost update: so safe, and it may starve.
    'long-work-watchdog': measured('safe-may-starve'),
    'restart-retry': measured('lost', RETRY_RECOVERS),
  },
  etcd: tokenLock(),
  zookeeper: tokenLock(),
  // The real libraries of other languages (locks/). redis-py's Lock: a single Redis with a TTL it renews only when
  // asked (reacquire), so it fails and is remedied like --lock=redis; it runs on the failover pair like redis.
  'redis-py': redisLike(measured('lost'), true),
  // kazoo, Curator, the Go Mutex: the session/lease is kept alive by the library's own thread, as for etcd/zookeeper.
  kazoo: tokenLock(),
  'etcd-go': tokenLock(),
  curator: tokenLock(),
  // python-etcd3's Lock has a lease and no keep-alive: it expires after its TTL unless refresh() is called. Long work
  // outlives it (lost) unless --watchdog refreshes it (safe); a paused holder cannot refresh (lost, with or without
  // the watchdog); its create revision fences a late or paused write (safe).
  'python-etcd3': {
    failover: construction('n/a', NO_PAIR),
    'long-work': measured('lost'),
    'long-work-watchdog': measured('safe'),
    'pause-watchdog': measured('lost'),
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': measured('lost'),
    'delay-write-fenced': measured('safe'),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  // Row + version: the write itself is the compare-and-set, so nothing that delays or outlives a lease matters.
  postgres: {
    failover: construction('n/a', NO_PAIR),
    // Measured, not decided: no lease exists for long work to outlive, and under a 2.5 s think one client often wins
    // every round (it re-reads first after its own commit, so it also writes first; the others' writes are refused
    // as stale) — a run like that has no second writer for a VALID. Whether it starves is chance, run by run (seed
    // 201: the first run starved, the second had two writers), so the cell expects no lost update and shows the
    // starvation when every run starved: both decide it the same way; a lost update contradicts it.
    'long-work': measured('safe-may-starve'),
    'long-work-watchdog': construction('refuse', NO_WATCHDOG),
    'pause-watchdog': construction('refuse', NO_WATCHDOG),
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': measured('safe'),
    'delay-write-fenced': construction(
      'safe',
      'it is its own fence: the version column is the token, so the fenced run is the delayed-write run again',
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  ...NPM_LIBRARY_REMEDY_ROWS,
};

/** A column of either table: the fault table's by its ORACLE_COLUMNS id, this table's by its scenario id. */
export interface TableColumnRef {
  table: 'faults' | 'remedies';
  id: string;
}

/** One line of "which remedy fixes which failure": the column where locks break, and the column with the remedy applied. */
export interface Remedy {
  failure: string;
  broken: TableColumnRef;
  remedy: string;
  /** null: there is no remedy a Redis lock could apply; `remedy` says what to do instead. */
  remedied: TableColumnRef | null;
  /** What the oracle expects of the remedy, in a sentence (the cells hold the per-lock expectation). */
  expect: string;
  /**
   * What the failure breaks: the data (`safety`, the default: a lost update or INVALID shows it), or the lock's
   * availability (`liveness`: a stall past the TTL shows it, and the remedy holds when its cell shows none).
   */
  breaks?: 'safety' | 'liveness';
}

export const REMEDIES: readonly Remedy[] = [
  {
    failure: 'long work > TTL',
    broken: { table: 'remedies', id: 'long-work' },
    remedy: `${optionShown('watchdog')}: renew every TTL/3, skip the write when a renewal fails`,
    remedied: { table: 'remedies', id: 'long-work-watchdog' },
    expect: 'holds: the lease is renewed while the work goes on',
  },
  {
    failure: 'holder paused > TTL',
    broken: { table: 'faults', id: 'pause-holder' },
    remedy: optionShown('watchdog'),
    remedied: { table: 'remedies', id: 'pause-watchdog' },
    expect: 'does not hold: a stopped process cannot renew, so its lease runs out and it writes when it resumes',
  },
  {
    failure: 'holder paused > TTL',
    broken: { table: 'faults', id: 'pause-holder' },
    remedy: `${optionShown('fencing')}: the resource refuses a token older than one it has seen`,
    remedied: { table: 'faults', id: 'fencing' },
    expect: 'holds for the locks with a token (etcd, ZooKeeper); the Redis locks have none',
  },
  {
    failure: 'Redis restart without persistence',
    broken: { table: 'faults', id: 'restart-empty' },
    remedy: `${optionShown('restart-delay')} ≥ TTL: stay down until every lease the node granted has run out`,
    remedied: { table: 'remedies', id: 'restart-delay' },
    expect: 'holds',
  },
  {
    failure: 'Redis restart without persistence',
    broken: { table: 'faults', id: 'restart-empty' },
    remedy: `${optionShown({ redisPersistence: 'aof-always' })}: fsync every write, so the restarted node keeps its keys`,
    remedied: { table: 'remedies', id: 'restart-aof' },
    expect: 'holds',
  },
  {
    failure: "a library's retry loop livelocks after a restart",
    broken: { table: 'faults', id: 'restart-empty' },
    remedy: `${optionShown({ retry: 'harness' })}: one library attempt per try, our loop between (redlock-npm: the package users' workaround)`,
    remedied: { table: 'remedies', id: 'restart-retry' },
    expect: 'recovers: no run stalls past the TTL (updates are still lost: the restart has no delay)',
    breaks: 'liveness',
  },
  {
    failure: 'delayed write',
    broken: { table: 'remedies', id: 'delay-write' },
    remedy: optionShown('fencing'),
    remedied: { table: 'remedies', id: 'delay-write-fenced' },
    expect: 'holds for the locks with a token: the late write is refused as stale; the Redis locks have none',
  },
  {
    failure: 'Redis restart without persistence',
    broken: { table: 'faults', id: 'restart-empty' },
    remedy: `${optionShown('fencing')} with a token counted in the same Redis (simple-redis-mutex)`,
    remedied: { table: 'faults', id: 'restart-fenced' },
    expect: 'does not hold: the counter restarts with the keys, so tokens go backwards',
  },
  {
    failure: 'failover before replication',
    broken: { table: 'remedies', id: 'failover' },
    remedy: `${optionShown('fencing')} with a token counted in the same Redis (simple-redis-mutex)`,
    remedied: { table: 'remedies', id: 'failover-fenced' },
    expect: "does not hold: the promoted replica's counter lags as its keys do, so it hands out tokens again",
  },
  {
    failure: 'failover before replication',
    broken: { table: 'remedies', id: 'failover' },
    remedy:
      'none for a Redis lock (replication is asynchronous): use a consensus lock (etcd, ZooKeeper) with --fencing',
    remedied: null,
    expect: 'no remedy measured',
  },
];
