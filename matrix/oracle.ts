import type { FaultName } from '../faults/fault-names.ts';
import { type Expectation, type LivenessExpect, type OracleCell, type OracleColumnId } from '../locks/oracle-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';

/** How an expectation reads in a table or a line: "safe, may starve", "may lose", "refused" — never the enum. */
export function expectWords(e: Expectation): string {
  return e === 'refuse' ? 'refused' : e === 'safe-may-starve' ? 'safe, may starve' : e === 'may-lose' ? 'may lose' : e;
}

/** How a liveness expectation reads in a table or a line: "may livelock", "recovers", "stalls". */
export function livenessWords(e: LivenessExpect): string {
  return e === 'may-livelock' ? 'may livelock' : e;
}

export interface OracleColumn {
  id: OracleColumnId;
  title: string;
  faults: FaultName[];
  fencing: boolean;
  /**
   * Upper bound on --nemesis-interval for this column's runs. restart-empty only bites when the kill lands
   * inside the holder's ~100 ms critical section (30–45 % of attempts here), so a short run needs many attempts.
   */
  maxIntervalMs?: number;
  /**
   * Lower bound on --think for this column's runs, as a fraction of the TTL. A restarted master answers again
   * 100–300 ms after the kill here; with the default 100 ms critical section the holder has always written by
   * then, so the kill "hits" (the holder was inside its section) and still can't cost anything — a lock that
   * survives that survived nothing. 0.4 × TTL keeps the section well inside the lock's validity (the holder does
   * hold the lock, as Redlock defines it) and wider than a restart, which is the failure the spec warns of.
   */
  minThinkTtlFraction?: number;
}

export const ORACLE_COLUMNS: readonly OracleColumn[] = [
  { id: 'no-fault', title: 'no fault', faults: [], fencing: false },
  { id: 'pause-holder', title: 'holder paused > TTL', faults: ['pause-holder'], fencing: false },
  {
    id: 'restart-empty',
    title: 'Redis restart empty',
    faults: ['restart-empty'],
    fencing: false,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  { id: 'clock', title: 'clock jump on Redis', faults: ['clock'], fencing: false },
  { id: 'fencing', title: 'with --fencing (holder paused)', faults: ['pause-holder'], fencing: true },
  // A fencing token kept in the same Redis as the lock (simple-redis-mutex's INCR counter) goes back to 1 when that
  // Redis restarts empty: restart-empty's shape, fenced. Only a Redis row with a token is measured here.
  {
    id: 'restart-fenced',
    title: 'Redis restart empty, --fencing',
    faults: ['restart-empty'],
    fencing: true,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  // One of a Redlock's five independent masters SIGSTOPped for --pause (1.5 × TTL): the algorithm needs only a
  // majority, so a library that decides on the first quorum goes on, and one that waits for every master's reply
  // with the README's clients (no command timeout) holds every acquire, extend and release until it resumes.
  { id: 'pause-master', title: 'one Redlock master paused > TTL', faults: ['pause-node'], fencing: false },
  // The Postgres session that holds the holder's advisory lock ended by the server (pg_terminate_backend) while the
  // holder is inside its section: the lock is freed at once, and the holder is not told unless its driver says so.
  { id: 'kill-session', title: "holder's lock session killed", faults: ['kill-session'], fencing: false },
];

/**
 * The oracle of the project's design notes (the expected-outcome table, generated into the README and docs/matrix.md) as data: what a correct harness shows for each strategy under each fault.
 * `--lock=all` runs the measured cells and marks each as matching or contradicting this table. If an unsafe cell
 * shows no anomaly, suspect the fault injection; if a safe cell shows one, suspect the harness. Each lock's row is
 * in its own folder (locks/<name>/row.ts `faults`).
 */
export const ORACLE = Object.fromEntries(BUILTIN_LOCKS.map((l) => [l, LOCK_ROWS[l].faults])) as Record<
  BuiltinLock,
  Readonly<Record<OracleColumnId, OracleCell>>
>;

export { MAX_RERUNS } from '../harness/options.ts';
