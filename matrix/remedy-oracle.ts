import type { FaultName } from '../faults/fault-names.ts';
import { optionShown, type RunOptionName, type RunOverrides } from '../harness/run-overrides.ts';
import type { OracleCell, RemedyScenarioId } from '../locks/oracle-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';

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
  // double grant then reads the holder's write, and its story is not whole (faults/judging/server-story.ts).
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

export const REMEDY_ORACLE = Object.fromEntries(BUILTIN_LOCKS.map((l) => [l, LOCK_ROWS[l].remedies])) as Record<
  BuiltinLock,
  Readonly<Record<RemedyScenarioId, OracleCell>>
>;

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
