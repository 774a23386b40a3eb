/**
 * fencepost's plugin API: what a lock strategy written outside this repository imports by name,
 * `import { LockNotAcquired, defineLock, type LockStrategy } from 'fencepost'`.
 *
 * The contract (docs/your-lock.md): a plugin module's default export is a `LockStrategy`.
 * `connect(ctx)` is called once per client process (and again, with fresh connections, after an op ended in
 * `info`); `acquire` resolves with a `Lease` once held, or rejects with `LockNotAcquired` when it definitely did
 * not get the lock by `ctx.acquireTimeoutMs` (any other rejection is recorded as "unknown"); `release` resolves
 * whether the lock was still yours; `renew` (optional) extends it for `--watchdog`. Every method returns a promise.
 *
 * `LockNotAcquired` is recognised by a well-known brand (`Symbol.for('fencepost.LockNotAcquired')`), not by class
 * identity, so a plugin built against another installed copy of fencepost is judged the same.
 */
export {
  defineLock,
  isLockNotAcquired,
  LOCK_NOT_ACQUIRED,
  LockNotAcquired,
  seededRandom,
  type Endpoint,
  type Lease,
  type LockClient,
  type LockContext,
  type LockStrategy,
  type ServerKind,
  type StrategyServers,
} from './locks/strategy.ts';
export type { FaultName } from './faults/fault-names.ts';
