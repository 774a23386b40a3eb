import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import { LEASE_ROW_NO_FAULT, LEASE_ROW_NOT_HERE, LEASE_ROW_REMEDIES } from './lease-row-cells.ts';

/**
 * `--lock=sql-lease`: ShedLock's lease row with the client's clock (sql-lease.ts), and what the oracle expects of it
 * under each fault and remedy — every cell written before its first run.
 */
export default {
  module: new URL('./sql-lease.ts', import.meta.url).href,
  // The row lives in the run's own Postgres, which is fencepost's even with --target: no key on a target's servers.
  place: { store: 'Postgres', from: 'fencepost' },
  faults: {
    'no-fault': LEASE_ROW_NO_FAULT,
    'pause-holder': {
      ...predicted(
        'lost',
        "a holder paused past its TTL (1.5 × TTL): the next waiter's UPDATE … WHERE lock_until <= now takes the row and writes; on SIGCONT the holder sends its write, computed from its old read. Its unlock then has no owner check (WHERE name = ? only): it sets lock_until = now on whatever lease the row holds, so a client inside its section at that moment loses its lease to a third — more overlaps than the fault's hits, and broken promises beside the outlived one",
      ),
      promise: {
        expect: 'may-break',
        reason:
          "its unlock has no owner check (WHERE name = ? only): a holder that outlived its lease and then unlocks frees the next holder's lease, and the lock grants a third client inside it",
      },
    },
    clock: construction(
      'n/a',
      "the fault cannot reach the lock: it jumps the clock of the lock's only server, Postgres, and no time of this lease comes from Postgres — lock_until and the now it is compared with are the clients' own `new Date()`, bound as parameters (a run would end unknown: nobody can be granted the row while its holder is inside, so the clock story cannot complete). The clients' clocks are clock-strobe's, in free runs: a client whose clock is ahead takes a lease still held",
    ),
    ...LEASE_ROW_NOT_HERE,
  },
  remedies: {
    ...LEASE_ROW_REMEDIES,
    'long-work': {
      ...predicted(
        'lost',
        "no extension: a 2.5 s section outlives its 1 s lease, the next waiter takes the row and writes, the holder's write lands after; and the holder's unlock, with no owner check, then frees the successor's lease",
      ),
      promise: {
        expect: 'may-break',
        reason:
          "its unlock has no owner check (WHERE name = ? only): a holder that outlived its lease and then unlocks frees the next holder's lease, and the lock grants a third client inside it",
      },
    },
    'delay-write': {
      ...predicted(
        'lost',
        'everything the holder sends to Postgres is held past its lease (its write, then its unlock); another client takes the row and writes; then the held write arrives — no token to refuse it',
      ),
      promise: {
        expect: 'may-break',
        reason:
          "its unlock has no owner check (WHERE name = ? only): a holder that outlived its lease and then unlocks frees the next holder's lease, and the lock grants a third client inside it",
      },
    },
  },
  findings: {
    package: 'ShedLock 6.10.0 JdbcTemplateLockProvider, client time (its statements on pg 8.23.1)',
    usage:
      "ShedLock's Postgres table and statements, as `new JdbcTemplateLockProvider(builder().withJdbcTemplate(…).build())` runs them (no `usingDbTime()`): `INSERT … ON CONFLICT (name) DO UPDATE … WHERE lock_until <= :now` the first time, `UPDATE … WHERE name = :name AND lock_until <= :now` after, `:now` the client's clock and `lock_until` = now + lockAtMostFor (the run's TTL); unlock `UPDATE … SET lock_until = :now WHERE name = :name`. ShedLock skips a locked task; the harness retries every 5–25 ms until its acquire budget.",
    verdict:
      "the client's clock decides when a lease ends, and the unlock frees whoever holds the row: a client clock ahead takes a held lock, a late unlock frees the next holder's lease; no token.",
    advice:
      "use `usingDbTime()` (ShedLock's README recommends it: the app servers' clocks \"may not be synchronized\"), upgrade to ShedLock 7 (its unlock checks locked_by since 7.0.0), keep lockAtMostFor well above the longest run of the task plus any clock skew, and make the task's effect idempotent or fenced: a lease row gives no token.",
    lockCheck: 'passed, all 10 steps',
  },
  // The paused holder, whose late unlock frees the next holder's lease.
  nightly: ['no-fault', 'pause-holder'],
} as const satisfies LockRow;
