import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import { NO_MASTERS, NO_PAIR, NO_REDIS, NO_TOKEN } from '../common-cells.ts';
import { NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';

/** `--lock=advisory-lock`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./advisory-lock.ts', import.meta.url).href,
  npm: 'advisory-lock',
  postgresSession: true,
  noLease: 'a session advisory lock lasts as long as its Postgres session',
  place: { store: 'Postgres', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'pg_advisory_lock: Postgres grants a session lock to one session at a time'),
    // Written before the first run as a measured 'safe' (the lock holds: nobody else is granted it while the holder
    // is stopped). Issue 33's stories then made a paused-holder hit need another client to take the lock meanwhile —
    // which a lock without a lease never allows — so every run ends unknown by design (the catalogue's storyLimits):
    // the cell is decided by construction, with what the run showed.
    'pause-holder': construction(
      'safe',
      "no lease: a paused holder's session stays open and keeps the lock, so the paused-holder story (another client takes the lock and writes while the holder is stopped) cannot happen — a run ends unknown by design (`--lock=advisory-lock --nemesis=pause-holder`: the stopped holder kept the others out for the whole 8.0 s pause, then wrote, 0 lost). kill-session is the story that can free its lock",
    ),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      'nothing of the lock depends on time: a session advisory lock has no TTL for a clock jump to shorten (and the run has no Redis whose clock the fault moves)',
    ),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('n/a', NO_REDIS),
    'pause-master': construction('n/a', NO_MASTERS),
    'kill-session': predicted(
      'safe',
      "the server ends the holder's lock session, which frees the lock at once and lets another client in; the library attaches no 'error' listener to that session's client, so the driver's 'error' event ends the holder's process before its write (think time is still running): safe, by the crash",
    ),
  },
  remedies: {
    failover: construction('n/a', NO_PAIR),
    'long-work': predicted('safe', 'no lease to outlive: the session holds the lock as long as the section runs'),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    // As its paused-holder cell (its `faults` above): written as measured 'safe'; delay-write's story needs
    // another client to write while the held write waits, which a lock without a lease never allows.
    'delay-write': construction(
      'safe',
      "nothing expires while the write is held: the holder's session keeps the lock until the write arrived and the holder released, so delay-write's story (another client writes during the hold) cannot happen — a run ends unknown by design",
    ),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  findings: {
    package: 'advisory-lock@2.0.0 (Postgres session advisory locks)',
    usage:
      "`advisoryLock(connectionString)(name).withLock(async () => { … })`, on the run's Postgres; the connection string carries `options=-c lock_timeout=<acquire budget>` so a wait ends (the README's usage waits forever).",
    verdict:
      'no lease, so no paused or slow holder can be overtaken; a session the server ends frees the lock at once, and the library crashes the holder rather than letting it write.',
    advice:
      "the safest of these for work inside one Postgres: the lock lives exactly as long as its session. Set `lock_timeout` (or `statement_timeout`) so a wait cannot block forever, and expect its process to die when an administrator or pooler ends the session (it has no 'error' listener). Behind pgbouncer in transaction mode session locks do not work at all.",
    lockCheck: 'passed, all 10 steps',
  },
  // Its paused-holder cell is decided by construction (no lease: the story cannot happen); the killed session is its story.
  nightly: ['no-fault', 'kill-session'],
} as const satisfies LockRow;
