import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LockNotAcquired, seededRandom, type Lease, type LockClient, type LockContext } from '../strategy.ts';

/**
 * A ShedLock-shaped lease row (ShedLock's JdbcTemplateLockProvider on Postgres), whichever clock its statements read:
 * one row per lock name in ShedLock's own table, taken by an INSERT … ON CONFLICT DO UPDATE … WHERE lock_until <= now
 * the first time a process locks a name, by an UPDATE … WHERE name = ? AND lock_until <= now after that, and given
 * back by an UPDATE of lock_until. The statements are each variant's own (its strategy file: client time here,
 * database time in that variant's folder); the order of them and the table are ShedLock's, read in
 * lukas-krecan/ShedLock (StorageBasedLockProvider.doLock, JdbcTemplateStorageAccessor, the table's documented DDL).
 */

/** ShedLock's default table and the Postgres DDL its own documentation gives (tag shedlock-parent-6.10.0). */
export const LEASE_TABLE = 'shedlock';

/** What both lease rows say of a token: a ShedLock row has none. */
export const LEASE_ROW_NO_TOKEN =
  'a ShedLock lease row hands out no fencing token: lock_until and locked_by say who holds it now, not which holder came later';
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${LEASE_TABLE} (
  name VARCHAR(64) NOT NULL,
  lock_until TIMESTAMP NOT NULL,
  locked_at TIMESTAMP NOT NULL,
  locked_by VARCHAR(255) NOT NULL,
  PRIMARY KEY (name)
)`;

/**
 * What two sessions creating the table at once may be told: `IF NOT EXISTS` checks before it creates, so the loser of
 * the race meets the winner's row type (unique_violation on pg_type) or table (duplicate_table). The table is there.
 */
const CREATED_MEANWHILE = new Set(['23505', '42P07']);

/** One statement, its SQL and the values it binds, and the lease end it writes when the client computed it. */
export interface LeaseQuery {
  text: string;
  values: unknown[];
  /** lock_until as the client computed it (ms since the epoch on its own clock); absent when the database did. */
  lockUntilMs?: number;
}

/** A variant's statements for one lock name (ShedLock's SqlStatementsSource, one per variant). */
export interface LeaseStatements {
  /** The first try of a name in a process: INSERT … ON CONFLICT (name) DO UPDATE … WHERE lock_until <= now. */
  insert(name: string): LeaseQuery;
  /** Every later try: UPDATE … SET lock_until, locked_at, locked_by WHERE name = ? AND lock_until <= now. */
  update(name: string): LeaseQuery;
  /** The unlock: UPDATE … SET lock_until = <now> WHERE name = ? (and, in a variant that checks, locked_by = ?). */
  unlock(name: string): LeaseQuery;
}

/**
 * Between two tries of one acquire: ShedLock itself never waits (a locked task is skipped until its next schedule),
 * so the wait is the harness's, as the redis recipe polls.
 */
const RETRY_MIN_MS = 5;
const RETRY_JITTER_MS = 20;
/** How long close waits for the session's goodbye: a server cut off by a fault must not keep the client open. */
const CLOSE_WAIT_MS = 1000;

/** The timestamp columns hold UTC wall time: what `timezone('utc', CURRENT_TIMESTAMP)` gives the database variant. */
export const utcTimestamp = (ms: number): string => new Date(ms).toISOString().replace('Z', '');

/**
 * ShedLock's `lockedBy` (`configuration.getLockedByValue()`): the hostname by default, so one value per machine. Each
 * client slot stands for one machine here (the value survives the slot's process restarts, as a hostname does).
 */
export const lockedByOf = (ctx: LockContext): string => `fencepost-client-${ctx.client}`;

export const lockName = (key: string): string => `lock:${key}`;

class LeaseRowClient implements LockClient {
  /** ShedLock's LockRecordRegistry: the names this process has tried to insert, which it only updates after. */
  private readonly inserted = new Set<string>();
  private readonly random: () => number;

  constructor(
    private readonly db: pg.Client,
    private readonly sql: LeaseStatements,
    private readonly ctx: LockContext,
  ) {
    this.random = seededRandom(ctx.seed);
  }

  async acquire(key: string): Promise<Lease> {
    const name = lockName(key);
    const deadline = performance.now() + this.ctx.acquireTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      const taken = await this.tryLock(name);
      if (taken) {
        // The lease end the holder was told, on its own clock; the database variant's client is told none.
        const validity = taken.lockUntilMs === undefined ? {} : { validityMs: taken.lockUntilMs - Date.now() };
        return { key, attempts, handle: name, ...validity };
      }
      if (performance.now() > deadline)
        throw new LockNotAcquired(`${name}: lock_until still ahead after ${attempts} tries`, attempts);
      await sleep(RETRY_MIN_MS + this.random() * RETRY_JITTER_MS);
    }
  }

  /** StorageBasedLockProvider.doLock: the insert once per name (the row may not exist yet), then the update. */
  private async tryLock(name: string): Promise<LeaseQuery | null> {
    if (!this.inserted.has(name)) {
      const insert = this.sql.insert(name);
      const r = await this.db.query(insert.text, insert.values);
      this.inserted.add(name);
      if (r.rowCount === 1) return insert;
    }
    const update = this.sql.update(name);
    return (await this.db.query(update.text, update.values)).rowCount === 1 ? update : null;
  }

  /** Whether the unlock changed the row: true for whatever lease the row held then, ours or not (see the variant). */
  async release(lease: Lease): Promise<boolean> {
    const unlock = this.sql.unlock(lease.handle as string);
    return ((await this.db.query(unlock.text, unlock.values)).rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await Promise.race([this.db.end().catch(() => {}), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
  }
}

/**
 * A client of one variant on the run's Postgres (LockContext.postgresUrl): one session, as a DataSource with one
 * connection would give it, and ShedLock's table created if it is not there yet.
 */
export async function connectLeaseRow(
  ctx: LockContext,
  who: string,
  statements: (lockedBy: string) => LeaseStatements,
): Promise<LockClient> {
  if (!ctx.postgresUrl) throw new Error(`${who} needs the run's Postgres (LockContext.postgresUrl)`);
  const db = new pg.Client({ connectionString: ctx.postgresUrl });
  // A session the server ends fails the next statement (an unknown outcome), not the process.
  db.on('error', () => {});
  await db.connect();
  try {
    await db.query(CREATE_TABLE);
  } catch (err) {
    if (!CREATED_MEANWHILE.has((err as { code?: string }).code ?? '')) {
      await db.end().catch(() => {});
      throw err;
    }
  }
  return new LeaseRowClient(db, statements(lockedByOf(ctx)), ctx);
}
