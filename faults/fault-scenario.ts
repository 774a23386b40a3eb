/**
 * A scenario of the matrix's remedy table (matrix/remedy-oracle.ts) that runs one fault: a failure the fault is known
 * to cause beyond its fault-table columns, bare or with the remedy usually recommended for it switched on. Declared
 * in the fault's facts (`scenarios`), so a fault and what the matrix runs it in are one folder; the matrix adds its
 * scenarios of no fault (long work), orders them all by `place`, and each lock's row holds a cell for every one
 * (locks/<name>/row.ts `remedies`).
 */
export interface FaultScenarioFacts {
  /** The scenario's id, which the lock rows key their cells by (locks/oracle-cell.ts RemedyScenarioId). */
  readonly id: string;
  /** Its heading in the tables and pages. */
  readonly title: string;
  /**
   * Where it stands in the remedy table, from 1: the order scenarios joined the table, so the tables, pages and
   * nightly cells keep theirs. A new scenario takes the next number.
   */
  readonly place: number;
  /** Its runs are fenced (`--fencing`). */
  readonly fencing: boolean;
  /** The remedy it switches on (run options the cell sets after the user's, so they win); absent: the failure bare. */
  readonly remedy?: RemedySwitch;
  /** Upper bound on --nemesis-interval for its runs. */
  readonly maxIntervalMs?: number;
  /** Lower bound on --think for its runs, as a fraction of the TTL. */
  readonly minThinkTtlFraction?: number;
  /** Lower bound on --restart-delay, as a fraction of the cell's TTL (the spec's remedy: stay down ≥ TTL). */
  readonly minRestartDelayTtlFraction?: number;
  /** Lower bound on --time-limit, in s, for a scenario that commits slowly (matrix/remedy-oracle.ts says why). */
  readonly minTimeLimitS?: number;
}

/**
 * The remedies a fault's scenario may switch on, by the run's config field each sets (the matrix checks them against
 * the run's options, harness/run-overrides.ts): a renewing watchdog, the harness's own retry loop, an fsync'd AOF.
 */
export interface RemedySwitch {
  readonly watchdog?: true;
  readonly retry?: 'harness';
  readonly redisPersistence?: 'aof-always';
}
