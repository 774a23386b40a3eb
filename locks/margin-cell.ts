import type { FaultName } from '../faults/fault-names.ts';
import type { MarginId } from './lock-row.ts';
import type { MeasuredCell } from './oracle-cell.ts';

/**
 * A cell at one lock's own threshold: a fault at a rate chosen a clear margin to one side of where the lock's own
 * timing says it breaks (research anchors §1.5: redis-semaphore refreshes at 0.8 × TTL, the watchdog at TTL/3,
 * Redlock budgets 0.01 of drift), with the prediction and its reason written before the cell's first run. A column
 * of the fault or remedy table asks every lock the same question; a margin is one lock's, because the threshold is
 * that lock's: its row declares it (locks/<name>/row.ts `margins`), and the matrix runs it for that lock alone
 * (matrix/margin-oracle.ts). Cells sit ±0.15 or more from the threshold, never at its edge: on a 2-core machine RTT,
 * GC and event-loop lag move every threshold toward 1.
 */
export interface MarginCell {
  /** Unique across the rows: the matrix, the nightly and `--cells` name the cell by it. */
  readonly id: MarginId;
  /** Its heading: the fault, the rate and what else the cell sets. */
  readonly title: string;
  readonly faults: readonly FaultName[];
  /** The run options it sets (its rate, the watchdog, the accounts), after the user's, so they win. */
  readonly options: MarginOptions;
  /**
   * Its critical section, as a fraction of the TTL of the holder's own clock: where the section ends against the
   * lease decides the side (a slowed holder's section stretches with its clock), so the cell sets it exactly.
   */
  readonly thinkTtlFraction: number;
  /** The threshold the cell sits beside, and how far from it, in words. */
  readonly threshold: string;
  readonly cell: MeasuredCell;
}

/**
 * The run options a margin may set, by the run config's field names (harness/run-overrides.ts renders them): the
 * rate its fault runs the clocks at (--clock-rate), how long at most (--pause: a mechanism whose period stretches past
 * the default 3 s needs the rate to last), --watchdog, and --accounts.
 */
export interface MarginOptions {
  readonly clockRate?: number;
  readonly pauseMs?: number;
  readonly watchdog?: true;
  readonly accounts?: number;
}
