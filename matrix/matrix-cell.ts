import type { LivenessExpect } from '../locks/oracle-cell.ts';
import type { RunVerdict } from '../checkers/verdict.ts';
import type { CellLiveness, RunLiveness } from './cell-liveness.ts';
import type { CellPromise, RunPromise } from './cell-promise.ts';
import type { PromiseExpect } from './promise-expectation.ts';

/**
 * One cell of a `--lock=all` matrix: one strategy under one fault (fenced or not), what the oracle expected, the
 * runs behind it and what they showed, and whether they agree. The matrix runner fills these; the matrix page
 * draws them. `runDir` is the run the cell links to (empty when none started, e.g. a refused combination).
 */
export type Expectation = 'safe' | 'lost' | 'safe-may-starve' | 'may-lose' | 'n/a' | 'refuse';

/**
 * What a cell showed. `invalid`: the verdict was INVALID without a lost update (an overlap the resource confirmed,
 * a token going backwards); `failed`: the harness threw; `accepted`: the CLI took a combination the oracle says it
 * must refuse; `not run`: decided by construction; `starved`: every run's verdict was unknown because one client
 * committed every write while the others committed none (and none lost an update).
 */
export type Observation =
  | 'safe'
  | 'lost'
  | 'invalid'
  | 'starved'
  | 'unknown'
  | 'failed'
  | 'refuse'
  | 'accepted'
  | 'not run';

/** What one run of a measured cell showed. */
export interface CellRun {
  seed: number;
  /** Empty when the harness threw before the run had a folder. */
  runDir: string;
  verdict: RunVerdict;
  lostUpdates: number;
  staleWritesRejected: number;
  /** How often the cell's fault hit (a holder paused, a node holding the key struck); absent when not known. */
  faultHits?: number;
  /** The run in the oracle's terms. */
  seen: 'safe' | 'lost' | 'invalid' | 'starved' | 'unknown' | 'failed';
  /** Recovery after the fault and the longest stall (cell-liveness.ts); absent when the run measured none. */
  liveness?: RunLiveness;
  /** Whose fault its overlaps were (cell-promise.ts); absent when its results predate the promise checker. */
  promise?: RunPromise;
  /** --stop-on-lost-update ended the run this many seconds in (its clients' time; bench nightly-plan scales by it). */
  stoppedAtS?: number;
  /** Whether the run can decide its cell; an inconclusive one is run again (with the next seed), up to a cap. */
  conclusive: boolean;
  /** Why it was inconclusive, which checkers failed, or the harness's error. */
  why?: string;
}

/**
 * The parts of the matrix: the fault table (lock × fault), the failure modes and remedies (lock × scenario), and the
 * margin cells each lock declares at its own clock thresholds (matrix/margin-oracle.ts).
 */
export type MatrixTable = 'faults' | 'remedies' | 'margins';

export interface MatrixCell {
  lock: string;
  /** The fault injected, by its --nemesis name; `none` for the no-fault column. */
  fault: string;
  fencing: boolean;
  runDir: string;
  expected: Expectation;
  observed: Observation;
  /** observed agrees with expected (the runner decides; cells decided by construction count apart, see `decided`). */
  matched: boolean;
  lostUpdates: number;
  staleWritesRejected: number;
  /** Acquire latency of ok acquires, ms. */
  acquireP50: number;
  acquireP99: number;
  /** Availability beside safety, over the cell's runs (cell-liveness.ts); absent when no run measured it. */
  liveness?: CellLiveness;
  /** The lock's broken promises over the cell's runs (cell-promise.ts); absent when no run measured them. */
  promise?: CellPromise;
  /**
   * The oracle's expectation of the promise column (matrix/promise-expectation.ts): `kept` cells match only with 0
   * broken. Absent in a matrix stored before it existed.
   */
  expectedPromise?: PromiseExpect;
  /** The oracle's liveness expectation, when it has one (matrix/oracle.ts, LivenessExpectation); `matched` needs it too. */
  expectedLiveness?: LivenessExpect;
  /** Column heading, if the runner has a better one than the fault's name ("holder paused > TTL"). */
  column?: string;
  /**
   * Which table the cell is in: the faults (lock × fault), the failure modes and remedies, or a lock's own margins;
   * absent for a nightly user's cell of its own (a stored matrix.json or nightly.json is read through its decoder,
   * which fills it in).
   */
  table?: MatrixTable;
  /** The column's id in its table (an ORACLE_COLUMNS id, a remedy scenario id, or a margin's id). */
  columnId?: string;
  /** Why a cell looks the way it does ("refused: Redis has no fencing token", "etcd ignores the clock shim"). */
  note?: string;
  /** Measured (run), or decided by construction (not run: `note` says why). */
  decided?: 'measured' | 'construction';
  /**
   * A lock in another language: which build of it the run the cell links to measured (the fingerprint of its test
   * record's foreignLock), so a night can say a cell's lock changed since the last one.
   */
  lockBuild?: string;
  /** Every run of a measured cell, in order; the cell links to the last one. */
  runs?: CellRun[];
}
