import type { FaultColumnId, FaultScenarioId } from '../faults/fault-names.ts';

/**
 * One cell of the oracle — what a lock is expected to show under one fault (or one remedy scenario), and how that is
 * decided — and the four ways a cell is written. Each lock's folder declares its own cells with these
 * (locks/<name>/expect.ts); the matrix (matrix/oracle.ts, matrix/remedy-oracle.ts) owns the columns and runs them.
 */

/** What a measured cell can be expected to show. */
export type MeasuredExpectation = 'safe' | 'lost' | 'safe-may-starve' | 'may-lose';

export type Expectation =
  /** no lost updates (and, when fenced, stale writes are rejected rather than applied) */
  | 'safe'
  /** lost updates must show up */
  | 'lost'
  /**
   * no lost updates, and a liveness finding that may or may not show in a given run: one client committing every
   * write while the others commit none (their conflicting writes refused). Matched by a VALID run ("safe") and by a
   * cell whose every run starved ("starved"); a lost update contradicts it like "safe"
   */
  | 'safe-may-starve'
  /**
   * unsafe, but not in every run: a lost update shows only when the interleaving falls a certain way (a paused master
   * answering while two clients wait). Matched by a lost update and by a clean run alike; the page says which it was,
   * and the oracle cell's reason names the run that lost. A counterexample still decides against "safe" elsewhere.
   */
  | 'may-lose'
  /** the CLI must refuse the combination with an explanation (exit 254) */
  | 'refuse'
  /** not applicable: the fault doesn't touch this strategy's servers */
  | 'n/a';

/**
 * What a measured cell's liveness is expected to show, beside its safety (checkers/liveness.ts, over the cell's
 * runs; a *livelock* is a stall: the lock free, clients waiting, nobody able to take it, for longer than the TTL).
 * `recovers`: no run has one — matched only then, so a cell matches only when its safety and its liveness both do.
 * `may-livelock`: a finding that shows in some runs and not others (whether waiters split the masters' votes is the
 * interleaving's doing): matched either way, like "safe, may starve", and the page shows the stall when it does.
 * `reason` says why.
 */
export interface LivenessExpectation {
  expect: LivenessExpect;
  reason: string;
}

/**
 * `stalls`: the finding must show — every run of the cell has a stall (a lock that waits for a server the fault
 * stopped holds every acquire until it resumes); a cell where some run recovered without one contradicts it.
 */
export type LivenessExpect = 'may-livelock' | 'recovers' | 'stalls';

/**
 * How one cell is decided. A measured cell is run (the same number of times as every other measured cell); a cell
 * decided by construction is not, because no run could tell anything: there is no lock for the fault to break, the
 * fault cannot reach the strategy's servers, or the CLI refuses the combination (which the matrix still checks by
 * running the CLI's option validation, without starting anything). `reason` says which.
 */
export type OracleCell =
  | {
      decided: 'measured';
      expect: MeasuredExpectation;
      liveness?: LivenessExpectation;
      /** Why the oracle expects this, written before the cell's first run (the npm rows: docs/findings.md shows it). */
      why?: string;
      /**
       * Set when a run contradicted the first prediction and the measurement won: what had been predicted, and why
       * the lock did otherwise (docs/findings.md lists these).
       */
      revised?: string;
      /**
       * A floor on the cell's --time-limit for this lock alone, in s: a lock whose waiters notice a lost lock slowly
       * (simple-redis-mutex polls every 10 s) needs longer runs than the column for the fault's story to complete.
       */
      minTimeLimitS?: number;
      /**
       * Where this lock's own logic can break its promise under a fault that leaves every server's leases alone (a
       * release without an owner check frees the next holder's lease; a lease timed by a server clock the fault
       * moves): the matrix then expects "may break" here instead of its rule's "kept" (matrix/promise-expectation.ts),
       * and `reason` says why.
       */
      promise?: { readonly expect: 'may-break'; readonly reason: string };
    }
  | { decided: 'construction'; expect: Expectation; reason: string };

/**
 * The fault table's columns (matrix/oracle.ts ORACLE_COLUMNS), by id: the column of no fault, and the columns each
 * fault declares in its facts (faults/<name>/facts.ts `columns`).
 */
export type OracleColumnId = 'no-fault' | FaultColumnId;

/**
 * The remedy table's scenarios (matrix/remedy-oracle.ts REMEDY_SCENARIOS), by id: long work, bare and with a
 * watchdog, and the scenarios each fault declares in its facts (faults/<name>/facts.ts `scenarios`).
 */
export type RemedyScenarioId = 'long-work' | 'long-work-watchdog' | FaultScenarioId;

/** A measured cell, with what its liveness is expected to show when that is part of the expectation. */
export const measured = (expect: MeasuredExpectation, liveness?: LivenessExpectation): OracleCell => ({
  decided: 'measured',
  expect,
  ...(liveness ? { liveness } : {}),
});

/** An oracle cell that is run. */
export type MeasuredCell = Extract<OracleCell, { decided: 'measured' }>;

/** A measured cell with the reason for its expectation, written before its first run. */
export const predicted = (expect: MeasuredExpectation, why: string, liveness?: LivenessExpectation): MeasuredCell => ({
  decided: 'measured',
  expect,
  why,
  ...(liveness ? { liveness } : {}),
});

/** A cell whose first prediction a run overturned: the measurement's expectation, with what was predicted and why. */
export const revised = (cell: OracleCell, note: string): OracleCell => ({ ...cell, revised: note }) as OracleCell;

export const construction = (expect: Expectation, reason: string): OracleCell => ({
  decided: 'construction',
  expect,
  reason,
});
