import type { LockRow } from '../lock-row.ts';
import { predicted } from '../oracle-cell.ts';
import { POOLED_NOT_HERE, POOLED_REMEDIES_NOT_HERE } from './pooled-cells.ts';

/**
 * A lock that breaks without any fault: every measured cell below expects the lost updates the no-fault cell shows
 * (a counterexample decides a cell whatever the fault did).
 */
const BREAKS_ANYWAY =
  'the double grants of the no-fault cell go on whatever the fault does: a lost update decides the cell';

/**
 * `--lock=advisory-lock-pgbouncer`: advisory-lock's session lock through pgbouncer in transaction mode, and what the
 * oracle expects of it — every cell written before its first run.
 */
export default {
  module: new URL('./advisory-lock-pgbouncer.ts', import.meta.url).href,
  // Its lock lives in the run's own Postgres, behind the run's own pgbouncer: fencepost's lines (see the module).
  noLease: 'a session advisory lock lasts as long as the Postgres session that took it',
  place: { store: 'Postgres', from: 'fencepost' },
  faults: {
    'no-fault': predicted(
      'lost',
      "pgbouncer lends a server connection for one transaction, and each autocommit statement is one: the holder's pg_advisory_lock runs on backend X, which returns to the pool still holding the lock, and pgbouncer reuses its idle connections last-in first-out, so the next client's pg_advisory_lock most often lands on X, where a session lock is re-entrant and returns at once — two holders, each writing from its own read (lost updates, the acquires' lockBackend equal). An unlock that lands on the other backend returns false and strands the lock on X",
    ),
    'pause-holder': predicted('lost', `while the holder is stopped its backend X serves the others: ${BREAKS_ANYWAY}`),
    ...POOLED_NOT_HERE,
  },
  remedies: {
    ...POOLED_REMEDIES_NOT_HERE,
    'long-work': predicted(
      'lost',
      `no lease to outlive, but a longer section only gives the others more time on X: ${BREAKS_ANYWAY}`,
    ),
    'delay-write': predicted(
      'lost',
      `another client is granted the lock on X while the holder's write is held: ${BREAKS_ANYWAY}`,
    ),
  },
  findings: {
    package:
      'advisory-lock@2.0.0 statements (pg_advisory_lock / pg_advisory_unlock), through pgbouncer 1.18 pool_mode=transaction',
    usage:
      "advisory-lock's statements on a new session per lock, the session's connection string pointing at pgbouncer (default_pool_size=2) instead of Postgres; each statement also selects pg_backend_pid().",
    verdict:
      "transaction pooling hands the lock's backend to other clients: pg_advisory_lock is re-entrant there (two holders), and an unlock on another backend strands the lock.",
    advice:
      "don't take session advisory locks through pgbouncer in transaction mode (its docs list them as broken there): take `pg_advisory_xact_lock` first in the transaction that does the work, or connect the locking session straight to Postgres or through a session-mode pool.",
    lockCheck:
      "failed 1 of 10 steps: a second acquire of account-0 while A held it was granted (B got the lock on A's backend: two holders) — the finding itself",
  },
  nightly: ['no-fault', 'pause-holder'],
} as const satisfies LockRow;
