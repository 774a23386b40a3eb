import { faultFacts } from '../faults/catalogue.ts';
import { rateAgainstAssumption } from './clock-assumption.ts';
import type { LockRow } from './lock-row.ts';
import { LOCK_ROWS, type BuiltinLock } from './registry.ts';

/**
 * What a run says of its rate against its lock's stated assumption (the summary's `clock:` line, the report's line
 * under "what to do"): only for a run with a fault that runs a clock at `--clock-rate` (its facts' `atClockRate`) on
 * a built-in lock that states one; null otherwise (a plugin states none yet).
 */
export function runRateAgainstAssumption(lock: string, clockRate: number, faults: readonly string[]): string | null {
  if (!faults.some((f) => faultFacts(f)?.atClockRate)) return null;
  const assumption = Object.hasOwn(LOCK_ROWS, lock)
    ? (LOCK_ROWS[lock as BuiltinLock] as LockRow).clockAssumption
    : undefined;
  return rateAgainstAssumption(lock, clockRate, assumption);
}
