/**
 * What keeps a slowed holder's lease alive, as its story can see it: `watchdog`, the run's --watchdog renewals (in
 * the history); `nothing`, a lock that takes --watchdog run without one (its lease is the TTL from its grant, nothing
 * extends it); `unseen`, a lock that renews itself or cannot say (redis-semaphore's own refresh, etcd's keep-alives,
 * a plugin): whatever it does is outside the history. The injection decides it (inject.ts `renewedBy`, which reads the
 * lock's row) and records it; the judge reads it back.
 */
export type RenewedBy = 'watchdog' | 'nothing' | 'unseen';

/** A recorded `renewedBy`, or undefined for a run that predates it (its shots had --watchdog: the fault required it). */
export const readRenewedBy = (v: unknown): RenewedBy | undefined =>
  v === 'watchdog' || v === 'nothing' || v === 'unseen' ? v : undefined;
