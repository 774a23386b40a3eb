import type { LockStrategy } from '../strategy.ts';
import { connectLeaseRow, LEASE_ROW_NO_TOKEN, LEASE_TABLE, utcTimestamp, type LeaseStatements } from './lease-row.ts';

/**
 * A lease row with the client's clock, as ShedLock's JdbcTemplateLockProvider writes it on Postgres without
 * `usingDbTime()` (its default): `now` is the client's `new Date()` and `lock_until` = now + TTL, both bound as
 * parameters, so whether a lease has run out is decided by the clock of whichever client asks. Statements read in
 * lukas-krecan/ShedLock at tag shedlock-parent-6.10.0 (commit 0739f7c3),
 * providers/jdbc/shedlock-provider-jdbc-template/…/jdbctemplate/SqlStatementsSource.java and
 * PostgresSqlStatementsSource.java:
 *
 *   insert  INSERT INTO shedlock(name, lock_until, locked_at, locked_by) VALUES(:name, :lockUntil, :now, :lockedBy)
 *           ON CONFLICT (name) DO UPDATE SET lock_until = :lockUntil, locked_at = :now, locked_by = :lockedBy
 *           WHERE shedlock.lock_until <= :now
 *   update  UPDATE shedlock SET lock_until = :lockUntil, locked_at = :now, locked_by = :lockedBy
 *           WHERE name = :name AND lock_until <= :now
 *   unlock  UPDATE shedlock SET lock_until = :unlockTime WHERE name = :name
 *
 * The unlock has no owner check: it sets lock_until of whatever lease the row holds, so a holder that outlived its
 * lease (paused, slow) and then unlocks frees the lease of the client that took the row after it. ShedLock added
 * `AND locked_by = :lockedBy` in commit d88fc4d4 ("Checking lockedBy when unlocking in SQL providers", 2025-10-22),
 * first released in 7.0.0; every 6.x release has the unlock above. `:unlockTime` is max(now, lockAtLeastUntil):
 * now, with ShedLock's default lockAtLeastFor of 0. The lease is lockAtMostFor = the run's --ttl; no renewal (the
 * default provider has none: KeepAliveLockProvider is an opt-in wrapper, not this row); no token.
 */
const clientTime = (lockedBy: string, ttlMs: number): LeaseStatements => {
  const taken = (name: string) => {
    const now = Date.now();
    return { values: [name, utcTimestamp(now + ttlMs), utcTimestamp(now), lockedBy], lockUntilMs: now + ttlMs };
  };
  const set = 'lock_until = $2, locked_at = $3, locked_by = $4';
  return {
    insert: (name) => ({
      text: `INSERT INTO ${LEASE_TABLE}(name, lock_until, locked_at, locked_by) VALUES($1, $2, $3, $4) ON CONFLICT (name) DO UPDATE SET ${set} WHERE ${LEASE_TABLE}.lock_until <= $3`,
      ...taken(name),
    }),
    update: (name) => ({
      text: `UPDATE ${LEASE_TABLE} SET ${set} WHERE name = $1 AND lock_until <= $3`,
      ...taken(name),
    }),
    unlock: (name) => ({
      text: `UPDATE ${LEASE_TABLE} SET lock_until = $2 WHERE name = $1`,
      values: [name, utcTimestamp(Date.now())],
    }),
  };
};

const sqlLease: LockStrategy = {
  name: 'sql-lease',
  // Its row lives in the run's Postgres, which every run starts (it holds the bank's accounts).
  needs: [],
  token: 'none',
  noTokenReason: LEASE_ROW_NO_TOKEN,
  renews: false,
  // lock_until = the client's now + TTL, read at or after the acquire's invoke: invoke + TTL while the clocks agree.
  lease: { kind: 'ttl-from-request' },
  // A paused holder outlives its lease; clock-strobe moves every client's clock (and the Postgres server's, which
  // this variant never reads).
  defaultFaults: ['pause-holder', 'clock-strobe'],
  connect: (ctx) => connectLeaseRow(ctx, 'sql-lease', (lockedBy) => clientTime(lockedBy, ctx.ttlMs)),
};
export default sqlLease;
