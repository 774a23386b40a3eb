import type { MarginCell } from '../locks/margin-cell.ts';
import type { MeasuredCell } from '../locks/oracle-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import type { LockRow } from '../locks/lock-row.ts';
import type { RunOptionName } from '../harness/run-overrides.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import type { MatrixColumn } from './matrix-columns.ts';

/**
 * The matrix's third part: the margin cells each lock row declares at its own clock thresholds
 * (locks/margin-cell.ts), each run for its own lock alone — not a column every lock answers, as in the fault and
 * remedy tables. A margin owns the options that place it: its rate, its section (think), its accounts and the
 * remedies' switches, so the user's values for them do not move a cell off its side of the threshold.
 */
const MARGIN_OWNS: readonly RunOptionName[] = [
  'clock-rate',
  'think',
  'accounts',
  'watchdog',
  'restart-delay',
  'redis-persistence',
  'retry',
];

/**
 * A margin's floor on --time-limit: a section near the TTL (redis-semaphore's 1.2 × TTL at r = 0.95) commits about
 * one write per section per account, so its 2 accounts need 20 s for the 10 writes a VALID verdict asks.
 */
const MARGIN_MIN_TIME_LIMIT_S = 20;

/** A margin as the matrix plans it: a column of one lock. */
export function marginColumn(m: MarginCell): MatrixColumn {
  return {
    table: 'margins',
    id: m.id,
    title: m.title,
    faults: [...m.faults],
    fencing: false,
    overrides: m.options,
    owns: MARGIN_OWNS,
    minThinkTtlFraction: m.thinkTtlFraction,
    minTimeLimitS: MARGIN_MIN_TIME_LIMIT_S,
    oracle: () => m.cell,
  };
}

/** Every lock's margins, in the registry's order, then each row's own. */
export const MARGINS: readonly { lock: BuiltinLock; margin: MarginCell }[] = BUILTIN_LOCKS.flatMap((lock) =>
  ((LOCK_ROWS[lock] as LockRow).margins ?? []).map((margin) => ({ lock, margin })),
);

/** The margin cells as the runner plans them: lock, column and the cell's prediction. */
export function marginPlan(): { lock: BuiltinLock; col: MatrixColumn; oracle: MeasuredCell }[] {
  return MARGINS.map(({ lock, margin }) => ({ lock, col: marginColumn(margin), oracle: margin.cell }));
}
