import type { FaultName } from '../nemesis/fault-names.ts';
import type { BuiltinLock } from '../workloads/lock-names.ts';

/**
 * The oracle of the project's design notes (the expected-outcome table, also in the README) as data: what a correct harness shows for each strategy under each fault.
 * `--lock=all` runs the cells and marks each as matching or contradicting this table. If an unsafe cell shows
 * no anomaly, suspect the fault injection; if a safe cell shows one, suspect the harness.
 */
export type Expectation =
  /** no lost updates (and, when fenced, stale writes are rejected rather than applied) */
  | 'safe'
  /** lost updates must show up */
  | 'lost'
  /** the CLI must refuse the combination with an explanation (exit 254) */
  | 'refuse'
  /** not applicable: the fault doesn't touch this strategy's servers */
  | 'n/a';

export interface OracleColumn {
  id: 'no-fault' | 'pause-holder' | 'restart-empty' | 'clock' | 'fencing';
  title: string;
  faults: FaultName[];
  fencing: boolean;
  /**
   * Upper bound on --nemesis-interval for this column's runs. restart-empty only bites when the kill lands
   * inside the holder's ~100 ms critical section (30–45 % of attempts here), so a short run needs many attempts.
   */
  maxIntervalMs?: number;
}

export const ORACLE_COLUMNS: readonly OracleColumn[] = [
  { id: 'no-fault', title: 'no fault', faults: [], fencing: false },
  { id: 'pause-holder', title: 'holder paused > TTL', faults: ['pause-holder'], fencing: false },
  { id: 'restart-empty', title: 'Redis restart empty', faults: ['restart-empty'], fencing: false, maxIntervalMs: 500 },
  { id: 'clock', title: 'clock jump on Redis', faults: ['clock'], fencing: false },
  { id: 'fencing', title: 'with --fencing (holder paused)', faults: ['pause-holder'], fencing: true },
];

export const ORACLE: Record<BuiltinLock, Record<OracleColumn['id'], Expectation>> = {
  none: { 'no-fault': 'lost', 'pause-holder': 'lost', 'restart-empty': 'lost', clock: 'lost', fencing: 'n/a' },
  redis: { 'no-fault': 'safe', 'pause-holder': 'lost', 'restart-empty': 'lost', clock: 'lost', fencing: 'refuse' },
  redlock: { 'no-fault': 'safe', 'pause-holder': 'lost', 'restart-empty': 'lost', clock: 'lost', fencing: 'refuse' },
  'redlock-npm': { 'no-fault': 'safe', 'pause-holder': 'lost', 'restart-empty': 'lost', clock: 'lost', fencing: 'refuse' },
  // etcd leases count down on the server's monotonic clock, and Go ignores our LD_PRELOAD shim anyway: immune.
  etcd: { 'no-fault': 'safe', 'pause-holder': 'lost', 'restart-empty': 'n/a', clock: 'safe', fencing: 'safe' },
  zookeeper: { 'no-fault': 'safe', 'pause-holder': 'lost', 'restart-empty': 'n/a', clock: 'n/a', fencing: 'safe' },
  // Row + version: the resource itself refuses stale writes, whatever happens to the clients or clocks.
  postgres: { 'no-fault': 'safe', 'pause-holder': 'safe', 'restart-empty': 'n/a', clock: 'safe', fencing: 'safe' },
};

/** What a finished run showed, in the oracle's terms. */
export function observed(run: { exitCode: number; lostUpdates: number; valid: boolean | 'unknown' }): Expectation | 'unknown' {
  if (run.exitCode === 254) return 'refuse';
  if (run.lostUpdates > 0) return 'lost';
  if (run.valid === 'unknown') return 'unknown';
  return 'safe';
}

/** How many runs a matrix cell gets at most while its outcome stays inconclusive. */
export const MAX_CELL_RUNS = 3;

/**
 * Whether one run leaves a cell open, so that the matrix runs it again (with the next seed): an anomaly the
 * oracle expects did not show up, which in one short run is absence of evidence; or a fenced run stayed safe
 * without the fence ever refusing a write, i.e. the fault never hit a holder and the fence was not tested. The
 * other direction is final at once: one lost update where "safe" was expected is a counterexample.
 */
export function inconclusive(expected: Expectation, seen: Expectation | 'unknown', fencing: boolean, staleWritesRejected: number): boolean {
  return (expected === 'lost' && seen === 'safe') || fenceUntested(fencing, expected, seen, staleWritesRejected);
}

/**
 * A fenced cell that came out safe without the fence ever refusing a write: the fault never hit a holder, so
 * "safe" says nothing about the fence. Such a cell does not match the oracle's "safe".
 */
export function fenceUntested(fencing: boolean, expected: Expectation, seen: Expectation | 'unknown', staleWritesRejected: number): boolean {
  return fencing && expected === 'safe' && seen === 'safe' && staleWritesRejected === 0;
}
