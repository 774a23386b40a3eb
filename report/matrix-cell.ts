/**
 * One cell of a `--lock=all` matrix: one run of one strategy under one fault (fenced or not), what the oracle
 * expected, what the run showed, and whether they agree. The matrix runner fills these; the matrix page draws
 * them. `runDir` is where the run's report.html is (empty when the run never started, e.g. a refused combination).
 */
export type Expectation = 'safe' | 'lost' | 'n/a' | 'refuse';
export type Observation = 'safe' | 'lost' | 'unknown' | 'refuse';

export interface MatrixCell {
  lock: string;
  /** The fault injected, by its --nemesis name; `none` for the no-fault column. */
  fault: string;
  fencing: boolean;
  runDir: string;
  expected: Expectation;
  observed: Observation;
  /** observed agrees with expected (the runner decides; n/a cells count as matched). */
  matched: boolean;
  lostUpdates: number;
  staleWritesRejected: number;
  /** Acquire latency of ok acquires, ms. */
  acquireP50: number;
  acquireP99: number;
  /** Column heading, if the runner has a better one than the fault's name ("holder paused > TTL"). */
  column?: string;
  /** Why a cell looks the way it does ("refused: Redis has no fencing token", "etcd ignores the clock shim"). */
  note?: string;
}
