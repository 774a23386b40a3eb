import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import { POOLED_NOT_HERE, POOLED_REMEDIES_NOT_HERE } from '../advisory-lock-pgbouncer/pooled-cells.ts';

/**
 * `--lock=advisory-xact-lock-pgbouncer`: pg_advisory_xact_lock in a transaction held open for the section, through
 * pgbouncer in transaction mode, and what the oracle expects of it — every cell written before its first run.
 */
export default {
  module: new URL('./advisory-xact-lock-pgbouncer.ts', import.meta.url).href,
  noLease: 'a transaction advisory lock lasts as long as its transaction',
  place: { store: 'Postgres', from: 'fencepost' },
  faults: {
    'no-fault': predicted(
      'safe',
      "an open transaction keeps its server connection in transaction pooling: the lock's backend serves no one else until COMMIT ends the lock with the transaction, so no other client's statement can reach it (no two holders share a lockBackend at once) and a waiter waits on the other backend",
    ),
    'pause-holder': construction(
      'safe',
      "no lease: a paused holder's transaction stays open and keeps its backend and the lock, so the paused-holder story (another client takes the lock and writes while the holder is stopped) cannot happen — a run ends unknown by design",
    ),
    ...POOLED_NOT_HERE,
  },
  remedies: {
    ...POOLED_REMEDIES_NOT_HERE,
    'long-work': predicted('safe', 'no lease to outlive: the transaction keeps the lock as long as the section runs'),
    'delay-write': construction(
      'safe',
      "nothing expires while the write is held: the lock's transaction stays open until the write arrived and the holder committed, so delay-write's story (another client writes during the hold) cannot happen — a run ends unknown by design",
    ),
  },
  findings: {
    package: "pg_advisory_xact_lock through pgbouncer 1.18 pool_mode=transaction (fencepost's lines on pg)",
    usage:
      "BEGIN, then SELECT pg_advisory_xact_lock(k1, k2), pg_backend_pid() on a session through pgbouncer (default_pool_size=2); COMMIT releases. The bank's write runs on its own connection inside that span, not in the lock's transaction (the resource writes straight to Postgres).",
    verdict:
      'an open transaction pins its backend in transaction pooling: the xact lock cannot be split across backends.',
    advice:
      "behind a transaction-mode pooler, take `pg_advisory_xact_lock` as the first statement of the transaction that does the work (the lock then ends with that work's commit or rollback), and keep that transaction short: it holds a pooled backend the whole time.",
    lockCheck: 'passed, all 10 steps',
  },
  nightly: ['no-fault'],
} as const satisfies LockRow;
