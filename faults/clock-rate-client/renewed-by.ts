import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockRef } from '../../workloads/lock-ref.ts';

/**
 * What keeps a slowed holder's lease alive, as its story can see it: `watchdog`, the run's --watchdog renewals (in
 * the history); `nothing`, a lock that takes --watchdog run without one (its lease is the TTL from its grant, nothing
 * extends it); `unseen`, a lock that renews itself or cannot say (redis-semaphore's own refresh, etcd's keep-alives,
 * a plugin): whatever it does is outside the history.
 */
export type RenewedBy = 'watchdog' | 'nothing' | 'unseen';

export function renewedBy(lock: string, watchdog: boolean): RenewedBy {
  if (watchdog) return 'watchdog';
  const ref = lockRef(lock);
  if (ref.kind !== 'builtin') return 'unseen';
  const cell = (LOCK_ROWS[ref.name] as LockRow).remedies['pause-watchdog'];
  return cell.decided === 'construction' && cell.expect === 'refuse' ? 'unseen' : 'nothing';
}

/** A recorded `renewedBy`, or undefined for a run that predates it (its shots had --watchdog: the fault required it). */
export const readRenewedBy = (v: unknown): RenewedBy | undefined =>
  v === 'watchdog' || v === 'nothing' || v === 'unseen' ? v : undefined;
