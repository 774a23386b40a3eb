import { faultFacts } from '../faults/catalogue.ts';
import { rateAgainstAssumption } from '../locks/clock-assumption.ts';
import type { LockRow } from '../locks/lock-row.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { lockRef } from '../workloads/lock-ref.ts';

/**
 * The summary's line on a run that moved a clock's rate against its lock's stated assumption
 * (locks/clock-assumption.ts): `clock: --clock-rate=0.5 is beyond redlock-v4's stated assumption …`. None for a run
 * without a rate fault, or a lock that states no assumption (a plugin states none yet).
 */
export function clockAssumptionLines(config: { lock: string; clockRate: number }, faults: readonly string[]): string[] {
  if (!faults.some((f) => faultFacts(f)?.atClockRate)) return [];
  const ref = lockRef(config.lock);
  const assumption = ref.kind === 'builtin' ? (LOCK_ROWS[ref.name] as LockRow).clockAssumption : undefined;
  const line = rateAgainstAssumption(config.lock, config.clockRate, assumption);
  return line ? [`  clock: ${line}`] : [];
}
