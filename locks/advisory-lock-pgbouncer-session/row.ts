import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import { POOLED_NOT_HERE, POOLED_REMEDIES_NOT_HERE } from '../advisory-lock-pgbouncer/pooled-cells.ts';

/**
 * `--lock=advisory-lock-pgbouncer-session`: the same statements through pgbouncer in session mode, and what the oracle
 * expects of it — every cell written before its first run, as advisory-lock's own direct row expects.
 */
export default {
  module: new URL('./advisory-lock-pgbouncer-session.ts', import.meta.url).href,
  noLease: 'a session advisory lock lasts as long as its Postgres session',
  place: { store: 'Postgres', from: 'fencepost' },
  faults: {
    'no-fault': predicted(
      'safe',
      "session pooling gives each client connection one backend from its first statement to its disconnect, so the lock, the section and the unlock run on one backend (the acquires' lockBackend never shared by two holders at once), and DISCARD ALL ends any lock a session left before the backend serves another: a direct session with a queue in front",
    ),
    'pause-holder': construction(
      'safe',
      "no lease: a paused holder's client connection stays open and keeps its backend and its lock, so the paused-holder story (another client takes the lock and writes while the holder is stopped) cannot happen — a run ends unknown by design, as advisory-lock's direct row",
    ),
    ...POOLED_NOT_HERE,
  },
  remedies: {
    ...POOLED_REMEDIES_NOT_HERE,
    'long-work': predicted(
      'safe',
      'no lease to outlive: the session keeps its backend and the lock as long as the section runs',
    ),
    'delay-write': construction(
      'safe',
      "nothing expires while the write is held: the holder's session keeps the lock until the write arrived and the holder released, so delay-write's story (another client writes during the hold) cannot happen — a run ends unknown by design",
    ),
  },
  findings: {
    package:
      'advisory-lock@2.0.0 statements (pg_advisory_lock / pg_advisory_unlock), through pgbouncer 1.18 pool_mode=session',
    usage:
      "advisory-lock's statements on a new session per lock through pgbouncer (default_pool_size=2, so at most two sessions hold backends; the others wait in pgbouncer up to the acquire budget, query_wait_timeout); each statement also selects pg_backend_pid().",
    verdict: 'session pooling keeps a session on one backend: the lock behaves as on a direct connection.',
    advice:
      'a session-mode pool is safe for session advisory locks; size it for the lock sessions (each holds a backend for its whole hold, waiters included) or waiters time out in the pooler.',
    lockCheck: 'passed, all 10 steps',
  },
  nightly: ['no-fault'],
} as const satisfies LockRow;
