import type { LockStrategy } from '../strategy.ts';
import { connectPooledAdvisoryLock } from '../advisory-lock-pgbouncer/pooled-advisory-lock.ts';

/**
 * advisory-lock's session lock (pooled-advisory-lock.ts) through pgbouncer in **session** mode: a client keeps one
 * server connection from its first statement until it disconnects, and pgbouncer runs `DISCARD ALL` (which ends every
 * advisory lock of the session) before that connection serves anyone else. Each acquire opens its own client, as the
 * package does, so the lock, its section and its unlock all run on one backend: a direct connection with a queue in
 * front (at most default_pool_size sessions at once; the rest wait in pgbouncer, up to the acquire budget).
 */
const advisoryLockPgbouncerSession: LockStrategy = {
  name: 'advisory-lock-pgbouncer-session',
  needs: [],
  pgbouncer: 'session',
  token: 'none',
  noTokenReason: 'a session advisory lock hands out no fencing token',
  renews: false,
  lease: {
    kind: 'unknown',
    why: 'an advisory lock lasts as long as its session (through pgbouncer: its client connection), whose end is not in the history',
  },
  defaultFaults: ['pause-holder', 'kill-holder', 'pause-node'],
  connect: (ctx) => connectPooledAdvisoryLock(ctx, 'advisory-lock-pgbouncer-session'),
};
export default advisoryLockPgbouncerSession;
