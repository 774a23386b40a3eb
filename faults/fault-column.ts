/**
 * A column of the matrix's fault table (matrix/oracle.ts) that runs one fault: declared in the fault's facts
 * (`columns`), so a fault and the columns that run it are one folder. The matrix adds its one column of no fault
 * and orders them all by `place`; each lock's row holds a cell for every column (locks/<name>/row.ts `faults`).
 */
export interface FaultColumnFacts {
  /** The column's id, which the lock rows key their cells by (locks/oracle-cell.ts OracleColumnId). */
  readonly id: string;
  /** Its heading in the tables and pages. */
  readonly title: string;
  /**
   * Where it stands in the fault table, from 1 (the column of no fault is 0): the order columns joined the table, so
   * the tables, pages and nightly cells keep theirs. A new column takes the next number.
   */
  readonly place: number;
  /** Its runs are fenced (`--fencing`). */
  readonly fencing: boolean;
  /** Upper bound on --nemesis-interval for its runs. */
  readonly maxIntervalMs?: number;
  /** Lower bound on --think for its runs, as a fraction of the TTL. */
  readonly minThinkTtlFraction?: number;
}
