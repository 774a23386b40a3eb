import type { LockRow } from '../lock-row.ts';
import { predicted } from '../oracle-cell.ts';
import { LEASE_ROW_NO_FAULT, LEASE_ROW_NOT_HERE, LEASE_ROW_REMEDIES } from '../sql-lease/lease-row-cells.ts';

/**
 * `--lock=sql-lease-dbtime`: ShedLock's lease row with the database's clock (sql-lease-dbtime.ts), and what the oracle
 * expects of it under each fault and remedy — every cell written before its first run.
 */
export default {
  module: new URL('./sql-lease-dbtime.ts', import.meta.url).href,
  // The row lives in the run's own Postgres, which is fencepost's even with --target: no key on a target's servers.
  place: { store: 'Postgres', from: 'fencepost' },
  databaseClock:
    "lock_until is timezone('utc', CURRENT_TIMESTAMP) + the TTL, and a waiter takes the row once lock_until <= that same clock: the lease runs on the database server's wall clock alone",
  faults: {
    'no-fault': LEASE_ROW_NO_FAULT,
    'pause-holder': predicted(
      'lost',
      "a holder paused past its TTL (1.5 × TTL): the next waiter's UPDATE … WHERE lock_until <= now takes the row and writes; on SIGCONT the holder sends its write, computed from its old read. Its unlock checks locked_by, so it frees nothing of the successor's: one overlap per hit, the holder's (outlived, not a broken promise)",
    ),
    clock: {
      ...predicted(
        'lost',
        "the fault jumps the clock of the lock's only server, Postgres, +60 s while a client is inside its section, and every time of this lease is the database's: the holder's lock_until is at once behind timezone('utc', CURRENT_TIMESTAMP), the next waiter's UPDATE takes the row and reads, the holder then writes, and the waiter's write erases it — a lease the lock had promised, broken by its server's clock. After the reset the successor's row stays taken for about the jump: its lock_until and locked_at were stamped 60 s ahead, and the unlock keeps lock_until at locked_at while that is ahead of now (its lockAtLeastFor CASE), so that account's waiters starve (not part of the expectation)",
      ),
      promise: {
        expect: 'may-break',
        reason:
          "every time of its lease is the database server's, and the fault jumps that clock: the lock itself grants inside a lease it promised",
      },
    },
    ...LEASE_ROW_NOT_HERE,
  },
  remedies: {
    ...LEASE_ROW_REMEDIES,
    'long-work': predicted(
      'lost',
      "no extension: a 2.5 s section outlives its 1 s lease, the next waiter takes the row and writes, the holder's write lands after (its unlock, owner-checked, frees nothing more)",
    ),
    'delay-write': predicted(
      'lost',
      'everything the holder sends to Postgres is held past its lease (its write, then its unlock); another client takes the row and writes; then the held write arrives — no token to refuse it',
    ),
  },
  findings: {
    package: 'ShedLock 6.10.0 JdbcTemplateLockProvider, usingDbTime() (its statements on pg 8.23.1)',
    usage:
      "ShedLock's Postgres table and statements with `usingDbTime()`: every time is `timezone('utc', CURRENT_TIMESTAMP)`, `lock_until` = that + lockAtMostFor (the run's TTL) computed in SQL; `INSERT … ON CONFLICT (name) DO UPDATE … WHERE lock_until <= now` the first time, `UPDATE … WHERE name = :name AND lock_until <= now` after; unlock `UPDATE … SET lock_until = now … WHERE name = :name AND locked_by = :lockedBy`. ShedLock skips a locked task; the harness retries every 5–25 ms until its acquire budget.",
    verdict:
      "no client's clock enters the lease and the unlock checks the owner — but a holder that outlives its lease still writes (no token), and a jump of the database server's clock ends every lease at once.",
    advice:
      "prefer it to the client-time default (ShedLock's README recommends `usingDbTime()`), keep the database server's clock from stepping (slew it: chrony's `makestep` off after boot), keep lockAtMostFor well above the task's longest run, and fence or make idempotent what the task writes: a lease row gives no token.",
    lockCheck: 'passed, all 10 steps',
  },
  // The clock that now matters: a jump of the database server's.
  nightly: ['no-fault', 'clock'],
} as const satisfies LockRow;
