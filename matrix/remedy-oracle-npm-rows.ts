import { type OracleCell, type RemedyScenarioId, construction, predicted } from '../locks/oracle-cell.ts';
import { NO_HARNESS_RETRY, NO_PAIR, NO_REDIS, NO_TOKEN, NO_WATCHDOG } from '../locks/shared-cells.ts';

/**
 * The failure-mode/remedy table's rows for the npm lock libraries, every expectation with its reason, written before
 * the first run (matrix/oracle-npm-rows.ts has their fault-table rows and says how they were written).
 */
type Row = Record<RemedyScenarioId, OracleCell>;

const NO_RETRY = construction('refuse', NO_HARNESS_RETRY);
const REDLOCK_NO_PAIR = construction(
  'n/a',
  `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
);
const FAILOVER_LOSES = predicted(
  'lost',
  'the replica is promoted without the key (the fault cuts replication first), so another client acquires on it while the holder is inside its section',
);
const DELAYED_WRITE_LANDS = predicted(
  'lost',
  "the holder's write is held past its lease; another client takes the lock and writes; then the held write arrives — no token to refuse it",
);
const RESTART_DELAY_HOLDS = predicted(
  'safe',
  'the restarted master stays down for a TTL, so every lease it granted has run out before it answers again: nobody is granted a lock its holder still uses',
);
const AOF_HOLDS = predicted(
  'safe',
  'with appendfsync always the restarted master comes back with its keys, the holder still owns its lock',
);
/** A lock that renews itself: --watchdog is refused, so both watchdog cells are too. */
const SELF_RENEWING = {
  'long-work-watchdog': construction('refuse', NO_WATCHDOG),
  'pause-watchdog': construction('refuse', NO_WATCHDOG),
} as const;

export const NPM_LIBRARY_REMEDY_ROWS = {
  'redlock-v4': {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted(
      'lost',
      'nothing extends the lock unless the user calls lock.extend: a 2.5 s section outlives a 1 s TTL',
    ),
    'long-work-watchdog': predicted(
      'safe',
      "--watchdog calls the README's lock.extend(ttl) every TTL/3; an extension that fails (no quorum, or `lock.expiration < Date.now()`) skips the write",
    ),
    'pause-watchdog': predicted(
      'lost',
      'a stopped process cannot extend: its lease runs out during the pause, and after SIGCONT its write goes before the overdue extension',
    ),
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  'redlock-sesame': {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted(
      'safe',
      'using() extends the lock 500 ms before it expires, over and over while the routine runs (TTL 1 s ≥ the 600 ms it requires)',
    ),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': predicted(
      'lost',
      'the write is held past the lease after the `signal.aborted` check passed (the extension, sent through the same held connection, cannot abort it in time); another holder writes first',
    ),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  'redis-semaphore': {
    failover: FAILOVER_LOSES,
    'long-work': predicted('safe', 'it refreshes the lock every 0.8 × TTL by itself while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  'redis-semaphore-redlock': {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted('safe', 'it refreshes the lock on every master every 0.8 × TTL while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  'redlock-universal': {
    failover: FAILOVER_LOSES,
    'long-work': predicted(
      'safe',
      'using() extends the lock while the routine runs; at a 1 s TTL its 1 s minimum interval makes it extend back to back (a busy loop, not a safety problem)',
    ),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  'redis-lock': {
    failover: FAILOVER_LOSES,
    'long-work': predicted('lost', 'no extension in its API: a 2.5 s section outlives a 1 s TTL'),
    ...SELF_RENEWING,
    'restart-delay': predicted(
      'lost',
      "the delay does not save it: the holder's done() runs while the node is down (its own clock says the lock is still valid), so its plain DEL waits in node-redis's offline queue behind the waiters' SET NX; when the node is back a waiter's SET wins and the holder's queued DEL then deletes that new holder's key, letting a third client in",
    ),
    'restart-retry': NO_RETRY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  'simple-redis-mutex': {
    failover: FAILOVER_LOSES,
    'long-work': predicted('lost', 'it renews only when asked (refreshTimeout()): a 2.5 s section outlives a 1 s TTL'),
    ...SELF_RENEWING,
    'restart-delay': predicted(
      'lost',
      'the delay saves the lock but not its token: the counter restarts at 1 with the emptied node, so the next grant carries a token below the last one — the token-order checker finds it (INVALID)',
    ),
    'restart-retry': NO_RETRY,
    'restart-aof': predicted('safe', 'with appendfsync always the restarted node keeps the key and the counter'),
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': predicted(
      'safe',
      "the successor's INCR token is larger; the held write arrives with the smaller one and is refused as stale",
    ),
    'failover-fenced': predicted(
      'lost',
      "the promoted replica's counter is as far behind as its keys: the next holder's INCR re-issues a token at or below the stale holder's, so the fence admits the stale holder's write after the successor's (and the token-order checker sees the counter go backwards)",
    ),
  },
  'etcd3-lock': {
    failover: construction('n/a', NO_PAIR),
    'long-work': predicted('safe', 'the library keeps the lease alive every TTL/3 while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': predicted(
      'lost',
      'the held write arrives after the lease ran out and another client wrote; nothing refuses it without the token',
    ),
    'delay-write-fenced': predicted(
      'safe',
      "the successor's create revision is larger: the held write is refused as stale",
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  'advisory-lock': {
    failover: construction('n/a', NO_PAIR),
    'long-work': predicted('safe', 'no lease to outlive: the session holds the lock as long as the section runs'),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY,
    'restart-aof': construction('n/a', NO_REDIS),
    // As its paused-holder cell (matrix/oracle-npm-rows.ts): written as measured 'safe'; delay-write's story needs
    // another client to write while the held write waits, which a lock without a lease never allows.
    'delay-write': construction(
      'safe',
      "nothing expires while the write is held: the holder's session keeps the lock until the write arrived and the holder released, so delay-write's story (another client writes during the hold) cannot happen — a run ends unknown by design",
    ),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
} as const satisfies Record<string, Row>;
