import { faultFacts } from '../faults/catalogue.ts';
import type { FaultScenarioFacts } from '../faults/fault-scenario.ts';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { optionShown, type RunOptionName, type RunOverrides } from '../harness/run-overrides.ts';
import type { OracleCell, OracleColumnId, RemedyScenarioId } from '../locks/oracle-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';

/**
 * The matrix's second table: the failure modes known to break a lock beyond the fault columns, and the remedies
 * usually recommended for them (docs/matrix.md), each as a scenario (faults + the run options that make it) with an expectation per lock. Decided
 * by the same rules as the fault table (matrix/oracle.ts): measured cells get the same number of runs,
 * inconclusive runs are replaced, and cells no run could inform are decided by construction, with a reason. A
 * scenario that runs a fault is declared in the fault's facts (faults/<name>/facts.ts `scenarios`); long work, which
 * runs none, here.
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

/** A scenario a fault declares in its facts (faults/<name>/facts.ts `scenarios`), with the fault it runs. */
function faultScenario(fault: FaultName, s: FaultScenarioFacts): RemedyScenario & { place: number } {
  const overrides: RunOverrides = s.remedy ?? {};
  return {
    id: s.id as RemedyScenarioId, // the catalogue's FaultScenarioId: what this fault's facts declare
    title: s.title,
    faults: [fault],
    fencing: s.fencing,
    overrides,
    owns: REMEDY_SWITCHES, // every scenario owns the remedies' switches; a fault's sets the one its facts name
    ...(s.maxIntervalMs === undefined ? {} : { maxIntervalMs: s.maxIntervalMs }),
    ...(s.minThinkTtlFraction === undefined ? {} : { minThinkTtlFraction: s.minThinkTtlFraction }),
    ...(s.minRestartDelayTtlFraction === undefined ? {} : { minRestartDelayTtlFraction: s.minRestartDelayTtlFraction }),
    ...(s.minTimeLimitS === undefined ? {} : { minTimeLimitS: s.minTimeLimitS }),
    place: s.place,
  };
}

/** The scenarios of no fault: long work, bare (place 2) and with its remedy (place 3). */
const LONG_WORK_SCENARIOS: readonly (RemedyScenario & { place: number })[] = [
  {
    id: 'long-work',
    title: 'long work > TTL',
    faults: [],
    fencing: false,
    overrides: LONG_WORK,
    owns: LONG_WORK_OWNS,
    minTimeLimitS: 30,
    place: 2,
  },
  {
    id: 'long-work-watchdog',
    title: 'long work > TTL, --watchdog',
    faults: [],
    fencing: false,
    overrides: { ...LONG_WORK, watchdog: true },
    owns: LONG_WORK_OWNS,
    minTimeLimitS: 30,
    place: 3,
  },
];

/**
 * The remedy table's scenarios: long work, and the scenarios the faults declare, each at its `place` (the order the
 * tables, the pages and the nightly's cells list them in).
 */
export const REMEDY_SCENARIOS: readonly RemedyScenario[] = [
  ...LONG_WORK_SCENARIOS,
  ...FAULT_NAMES.flatMap((f) => (faultFacts(f)?.scenarios ?? []).map((s) => faultScenario(f, s))),
]
  .sort((a, b) => a.place - b.place)
  .map(({ place: _place, ...scenario }) => scenario);

export const REMEDY_ORACLE = Object.fromEntries(BUILTIN_LOCKS.map((l) => [l, LOCK_ROWS[l].remedies])) as Record<
  BuiltinLock,
  Readonly<Record<RemedyScenarioId, OracleCell>>
>;

/**
 * A column of either table: the fault table's by its ORACLE_COLUMNS id, this table's by its scenario id — each typed
 * by the ids the faults declare, so a line naming a column no fault runs any longer does not compile.
 */
export type TableColumnRef = { table: 'faults'; id: OracleColumnId } | { table: 'remedies'; id: RemedyScenarioId };

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
