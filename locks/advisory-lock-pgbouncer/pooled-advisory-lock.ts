import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LockNotAcquired, type Lease, type LockClient, type LockContext } from '../strategy.ts';

/**
 * advisory-lock@2.0.0's session lock, statement for statement, through the run's pgbouncer: every acquire opens a new
 * `pg.Client` on the connection string, runs `SELECT pg_advisory_lock(k1, k2)` (two int4 from SHA-256 of the name,
 * its `strToKey`) and keeps that client until the release runs `pg_advisory_unlock(k1, k2)` and ends it (its
 * build/index.js: `lock()` and the `unlock` it returns; locks/advisory-lock/advisory-lock.ts runs the package itself).
 *
 * Why fencepost's own lines and not the package: the evidence. Each statement also selects `pg_backend_pid()` — in
 * the *same* statement, the only way to know which backend ran the lock call: through transaction pooling a second
 * statement may run on another backend and would prove nothing. The package's SQL is fixed (`SELECT ${lockFn}(k1,
 * k2)`), so it cannot carry the pid. Two differences, both said: the unlock's answer is returned (false: the backend
 * that ran it held no such lock — the lock is stranded on another), where the package drops it; and the client has
 * an 'error' listener (a session the server ends fails the next statement), where the package's crashes its process.
 */

/** advisory-lock's `strToKey`: the first two little-endian int32 of SHA-256(name). */
export function advisoryKey(name: string): [number, number] {
  const h = createHash('sha256').update(name).digest();
  return [h.readInt32LE(0), h.readInt32LE(4)];
}

/** The lock name of an account's key, as the advisory-lock row names it. */
export const lockNameOf = (key: string): string => `fencepost:${key}`;

/** How long close waits for a session's goodbye: a pooler cut off by a fault must not keep the client open. */
const CLOSE_WAIT_MS = 1000;

/**
 * A wait that ended with nothing held: Postgres's lock_timeout (55P03) while pg_advisory_lock waited, or pgbouncer's
 * query_wait_timeout while the statement waited for a server connection and never reached a backend.
 */
export function notAcquired(err: unknown): LockNotAcquired | null {
  const e = err as { code?: string; message?: string };
  if (e.code === '55P03' || /query_wait_timeout/.test(e.message ?? ''))
    return new LockNotAcquired(`${e.code ?? ''} ${e.message ?? ''}`.trim(), 1);
  return null;
}

/** The lease's private part: the session the lock was taken on, and which backend ran each statement. */
export interface PooledHold {
  db: pg.Client;
  keys: [number, number];
  lockBackend: number;
  /** Set by the release: the backend that ran pg_advisory_unlock, and its answer. */
  unlock?: { backend: number; unlocked: boolean };
}

/** One new session on `url` (the run's pgbouncer), whose ending by the server fails a statement, not the process. */
export async function openSession(url: string): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: url });
  db.on('error', () => {});
  try {
    await db.connect();
  } catch (err) {
    await db.end().catch(() => {});
    throw err;
  }
  return db;
}

export async function endSession(db: pg.Client): Promise<void> {
  await Promise.race([db.end().catch(() => {}), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
}

class PooledAdvisoryLockClient implements LockClient {
  private readonly open = new Set<pg.Client>();

  constructor(private readonly url: string) {}

  async acquire(key: string): Promise<Lease> {
    const keys = advisoryKey(lockNameOf(key));
    const db = await openSession(this.url);
    this.open.add(db);
    try {
      const r = await db.query<{ backend: number }>(
        `SELECT pg_advisory_lock(${keys[0]}, ${keys[1]}), pg_backend_pid() AS backend`,
      );
      const hold: PooledHold = { db, keys, lockBackend: r.rows[0].backend };
      return { key, attempts: 1, handle: hold, evidence: { lockBackend: hold.lockBackend } };
    } catch (err) {
      this.open.delete(db);
      await endSession(db);
      throw notAcquired(err) ?? err;
    }
  }

  /** pg_advisory_unlock's own answer: false when the backend that ran it held no such lock. Then the session ends. */
  async release(lease: Lease): Promise<boolean> {
    const hold = lease.handle as PooledHold;
    try {
      const r = await hold.db.query<{ unlocked: boolean; backend: number }>(
        `SELECT pg_advisory_unlock(${hold.keys[0]}, ${hold.keys[1]}) AS unlocked, pg_backend_pid() AS backend`,
      );
      hold.unlock = r.rows[0];
      return r.rows[0].unlocked;
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

/** The client of a strategy that declares `pgbouncer`: its sessions go through the run's pgbouncer. */
export async function connectPooledAdvisoryLock(ctx: LockContext, who: string): Promise<LockClient> {
  if (!ctx.pgbouncerUrl) throw new Error(`${who} needs the run's pgbouncer (LockContext.pgbouncerUrl)`);
  return new PooledAdvisoryLockClient(ctx.pgbouncerUrl);
}
