import pg from 'pg';
import type { Lease, LockClient, LockContext, LockStrategy } from '../strategy.ts';
import {
  advisoryKey,
  endSession,
  lockNameOf,
  notAcquired,
  openSession,
} from '../advisory-lock-pgbouncer/pooled-advisory-lock.ts';

/**
 * `pg_advisory_xact_lock` through pgbouncer in **transaction** mode: the acquire opens a transaction (`BEGIN`) and
 * takes the lock inside it (`SELECT pg_advisory_xact_lock(k1, k2), pg_backend_pid()`, the same key as advisory-lock);
 * the release is `COMMIT`, which ends the lock with the transaction. An open transaction keeps its server connection
 * in transaction pooling, so the lock's backend serves no one else while it is held: the pooler cannot split it.
 *
 * What it is not: the lock inside the *write's own* transaction. The bank resource writes on its own connection,
 * straight to Postgres (workloads/resource.ts, one statement), between the lock's BEGIN and its COMMIT; the lock's
 * transaction only spans it. Putting the write in the lock's transaction would take a LockClient that hands the
 * resource its session (so the read and the write run between the BEGIN and the lock's COMMIT) and a history in which
 * the release is the write's commit; then a lock that ends (a killed backend) would also roll the write back. Until
 * then, what this row measures is the lock's transaction through the pooler, which is what a pgbouncer user gets from
 * "take the xact lock first in the transaction".
 */
interface XactHold {
  db: pg.Client;
  lockBackend: number;
  /** Set by the release: the backend that ran COMMIT (the same one, while the transaction held it). */
  commitBackend?: number;
}

class XactLockClient implements LockClient {
  private readonly open = new Set<pg.Client>();

  constructor(private readonly url: string) {}

  async acquire(key: string): Promise<Lease> {
    const [k1, k2] = advisoryKey(lockNameOf(key));
    const db = await openSession(this.url);
    this.open.add(db);
    try {
      await db.query('BEGIN');
      const r = await db.query<{ backend: number }>(
        `SELECT pg_advisory_xact_lock(${k1}, ${k2}), pg_backend_pid() AS backend`,
      );
      const hold: XactHold = { db, lockBackend: r.rows[0].backend };
      return { key, attempts: 1, handle: hold, evidence: { lockBackend: hold.lockBackend } };
    } catch (err) {
      this.open.delete(db);
      // Ending the session rolls back a transaction the wait left open (pgbouncer sends the server nothing else).
      await endSession(db);
      throw notAcquired(err) ?? err;
    }
  }

  /** COMMIT ends the lock with the transaction; true when it committed (a transaction the server ended did not). */
  async release(lease: Lease): Promise<boolean> {
    const hold = lease.handle as XactHold;
    try {
      const r = await hold.db.query<{ backend: number }>('SELECT pg_backend_pid() AS backend');
      hold.commitBackend = r.rows[0].backend;
      const done = await hold.db.query('COMMIT');
      return done.command === 'COMMIT';
    } finally {
      this.open.delete(hold.db);
      await endSession(hold.db);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map(endSession));
    this.open.clear();
  }
}

const advisoryXactLockPgbouncer: LockStrategy = {
  name: 'advisory-xact-lock-pgbouncer',
  needs: [],
  pgbouncer: 'transaction',
  token: 'none',
  noTokenReason: 'a transaction advisory lock hands out no fencing token',
  renews: false,
  lease: {
    kind: 'unknown',
    why: 'a transaction advisory lock lasts as long as its transaction, whose end by the server is not in the history',
  },
  defaultFaults: ['pause-holder', 'kill-holder', 'pause-node'],
  async connect(ctx: LockContext) {
    if (!ctx.pgbouncerUrl)
      throw new Error("advisory-xact-lock-pgbouncer needs the run's pgbouncer (LockContext.pgbouncerUrl)");
    return new XactLockClient(ctx.pgbouncerUrl);
  },
};
export default advisoryXactLockPgbouncer;
