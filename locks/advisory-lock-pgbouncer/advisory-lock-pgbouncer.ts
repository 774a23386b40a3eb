import type { LockStrategy } from '../strategy.ts';
import { connectPooledAdvisoryLock } from './pooled-advisory-lock.ts';

/**
 * advisory-lock's session lock (pg_advisory_lock / pg_advisory_unlock, pooled-advisory-lock.ts) with its sessions
 * going through pgbouncer in **transaction** mode, as teams run it behind a pooler. pgbouncer hands a server
 * connection to a client for one transaction only; each autocommit statement is one. So the lock call runs on backend
 * X, which goes back to the pool still holding the session lock; the unlock may run on backend Y, which holds nothing
 * (false: a stranded lock); and another client's pg_advisory_lock that lands on X is re-entrant there and returns at
 * once (two holders). pgbouncer's docs list session-level advisory locks among the features transaction pooling
 * breaks ("You can use it only when the application cooperates").
 */
const advisoryLockPgbouncer: LockStrategy = {
  name: 'advisory-lock-pgbouncer',
  // Its lock lives in the run's Postgres, reached through the pgbouncer the run starts for it.
  needs: [],
  pgbouncer: 'transaction',
  token: 'none',
  noTokenReason: 'a session advisory lock hands out no fencing token',
  renews: false,
  lease: {
    kind: 'unknown',
    why: 'an advisory lock lasts as long as the backend that ran pg_advisory_lock holds it, which the history does not see',
  },
  defaultFaults: ['pause-holder', 'kill-holder', 'pause-node'],
  connect: (ctx) => connectPooledAdvisoryLock(ctx, 'advisory-lock-pgbouncer'),
};
export default advisoryLockPgbouncer;
