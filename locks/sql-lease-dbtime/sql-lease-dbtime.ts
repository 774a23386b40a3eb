import type { LockStrategy } from '../strategy.ts';
import { connectLeaseRow, LEASE_ROW_NO_TOKEN, LEASE_TABLE, type LeaseStatements } from '../sql-lease/lease-row.ts';

/**
 * The lease row of locks/sql-lease/ with every time taken from the database, as ShedLock's JdbcTemplateLockProvider
 * writes it on Postgres with `usingDbTime()` (its README: "strongly recommended"): `now` is
 * `timezone('utc', CURRENT_TIMESTAMP)` — the Postgres server's clock when the statement's transaction began — and
 * `lock_until` = now + lockAtMostFor, both computed in SQL, so no client's clock enters the lease. Statements read in
 * lukas-krecan/ShedLock at tag shedlock-parent-6.10.0 (commit 0739f7c3),
 * providers/jdbc/shedlock-provider-jdbc-template/…/jdbctemplate/PostgresSqlServerTimeStatementsSource.java (the same
 * on master, 2495b140, with make_interval in place of the cast):
 *
 *   insert  INSERT INTO shedlock(name, lock_until, locked_at, locked_by)
 *           VALUES(:name, now + cast(:lockAtMostForInterval as interval), now, :lockedBy)
 *           ON CONFLICT (name) DO UPDATE <set>
 *   update  UPDATE shedlock <set>
 *     <set> SET lock_until = now + cast(:lockAtMostForInterval as interval), locked_at = now, locked_by = :lockedBy
 *           WHERE shedlock.name = :name AND shedlock.lock_until <= now
 *   unlock  UPDATE shedlock SET lock_until = CASE WHEN locked_at + cast(:lockAtLeastForInterval as interval) > now
 *           THEN locked_at + cast(:lockAtLeastForInterval as interval) ELSE now END
 *           WHERE name = :name AND locked_by = :lockedBy
 *
 * Unlike the client-time statements of that release, this unlock checks the owner (locked_by, one value per client
 * slot: lease-row.ts), so a holder that outlived its lease frees nothing of its successor's. lockAtLeastFor is
 * ShedLock's default, 0. The database's clock is now the one that matters: a jump of the Postgres server's clock ends
 * every lease at once. No renewal, no token, the lease = the run's --ttl, as locks/sql-lease/.
 */
const dbTime = (lockedBy: string, ttlMs: number): LeaseStatements => {
  const now = "timezone('utc', CURRENT_TIMESTAMP)";
  const values = (name: string) => [name, `${ttlMs} milliseconds`, lockedBy];
  const set = `SET lock_until = ${now} + cast($2 as interval), locked_at = ${now}, locked_by = $3 WHERE ${LEASE_TABLE}.name = $1 AND ${LEASE_TABLE}.lock_until <= ${now}`;
  const atLeast = 'locked_at + cast($2 as interval)';
  return {
    insert: (name) => ({
      text: `INSERT INTO ${LEASE_TABLE}(name, lock_until, locked_at, locked_by) VALUES($1, ${now} + cast($2 as interval), ${now}, $3) ON CONFLICT (name) DO UPDATE ${set}`,
      values: values(name),
    }),
    update: (name) => ({ text: `UPDATE ${LEASE_TABLE} ${set}`, values: values(name) }),
    unlock: (name) => ({
      text: `UPDATE ${LEASE_TABLE} SET lock_until = CASE WHEN ${atLeast} > ${now} THEN ${atLeast} ELSE ${now} END WHERE name = $1 AND locked_by = $3`,
      values: [name, '0 milliseconds', lockedBy],
    }),
  };
};

const sqlLeaseDbtime: LockStrategy = {
  name: 'sql-lease-dbtime',
  // Its row lives in the run's Postgres, which every run starts (it holds the bank's accounts).
  needs: [],
  token: 'none',
  noTokenReason: LEASE_ROW_NO_TOKEN,
  renews: false,
  // lock_until = the database's now + TTL, its now read when the statement's transaction began: after the request.
  lease: { kind: 'ttl-from-request' },
  // A paused holder outlives its lease; a jump of the Postgres server's clock (the clock fault) ends every lease.
  defaultFaults: ['pause-holder', 'clock'],
  connect: (ctx) => connectLeaseRow(ctx, 'sql-lease-dbtime', (lockedBy) => dbTime(lockedBy, ctx.ttlMs)),
};
export default sqlLeaseDbtime;
