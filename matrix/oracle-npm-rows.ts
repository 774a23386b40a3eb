import { type OracleCell, type OracleColumnId, construction, predicted, revised } from '../locks/oracle-cell.ts';
import { NO_MASTERS, NO_REDIS, NO_SESSION, NO_TOKEN, NOT_HERE, waitsForEveryMaster } from '../locks/shared-cells.ts';

/**
 * The fault table's rows for the npm lock libraries (locks/<row>/<row>.ts, each as its README uses it),
 * every expectation with its reason, written from the libraries' code and READMEs before the first run
 (a read of their sources, READMEs and trackers, 2026-12-04, was the starting point). Where a run contradicted one, the cell says
 * what was measured and `why` says what was expected and why it differs (docs/findings.md shows both).
 */
type Row = Record<OracleColumnId, OracleCell>;

const PAUSED_HOLDER_WRITES =
  'a holder paused past its TTL (1.5 × TTL) loses its key to expiry; another client takes the lock and writes; on SIGCONT the holder sends its write';
const NO_KEY_AFTER_RESTART =
  'the restarted master comes back without the key while its holder is inside its section, so another client is granted the lock';
const CLOCK_EXPIRES_KEY =
  "the jumped clock expires the holder's key early on the server, so another client takes the lock while the holder is still inside its section";

/** The cells of a Redis lock without a fencing token that no new column reaches. */
const noTokenNoSession = {
  fencing: construction('refuse', NO_TOKEN),
  'restart-fenced': construction('refuse', NO_TOKEN),
  'kill-session': construction('n/a', NO_SESSION),
} as const;

export const NPM_LIBRARY_ROWS = {
  'redlock-v4': {
    'no-fault': predicted('safe', 'compare-and-delete release, a quorum of five, and a validity check on every grant'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES}: nothing in redlock 4 checks the lock before acting`),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART} on a majority of masters (the fault restarts the masters holding it, no delay)`,
      {
        expect: 'recovers',
        reason:
          "unlike the beta, a failed attempt runs its unlock script on every master before the next one (redlock.js `_lock`), so waiters that split the restarted masters' votes free them within one attempt: no stall past the TTL",
      },
    ),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': waitsForEveryMaster(
      'redlock 4 decides an attempt only when all five masters answered (`if (waiting-- > 1) return`)',
    ),
  },
  'redlock-sesame': {
    'no-fault': predicted('safe', 'compare-and-delete release and a quorum of five'),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}: the README's \`signal.aborted\` check passes, because after SIGCONT the overdue think timer (armed at the read) runs before the overdue extension timer (armed at the acquire, expiration − 500 ms), so the write goes out before any extension can fail`,
    ),
    'restart-empty': predicted('lost', `${NO_KEY_AFTER_RESTART} on a majority of masters`, {
      expect: 'may-livelock',
      reason:
        "the fork kept node-redlock v5's retry loop: one value for every attempt, an acquire script that refuses its own partial locks, partials released only after the 11th attempt — waiters that split the restarted masters' votes block themselves for a TTL, in some runs, as the beta does",
    }),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': revised(
      predicted(
        'safe',
        'it resolves each attempt on the first quorum (`_attemptOperation`): a paused master only delays its own answer, a majority still decides every grant',
        {
          expect: 'may-livelock',
          reason:
            "with one master paused, three of the four live ones must agree and waiters split them 2–2 easily; its retry loop (node-redlock v5's) keeps each attempt's partial locks until the last attempt, so split waiters block themselves for a TTL — in some runs",
        },
      ),
      "predicted to recover (each attempt resolves on the first quorum; nobody waits for the paused master). Measured a stall (`--lock=all`, seed 782519096: 2.0 s past the TTL while redis was paused): the beta's self-blocking retry loop, kept by the fork, needs no restart — one paused master is enough to split the votes it blocks itself on (redlock-npm did the same in the same matrix)",
    ),
  },
  'redis-semaphore': {
    'no-fault': predicted('safe', 'SET NX PX and a compare-and-delete release on one Redis'),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES} — its write is due before the overdue refresh (think timer at the read, refresh 0.8 × TTL after the acquire); the refresh then finds the key gone and the default onLockLost throws LostLockError unhandled, ending the holder's process after its write was sent (the library's crash, recorded as such)`,
    ),
    'restart-empty': predicted('lost', NO_KEY_AFTER_RESTART),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  'redis-semaphore-redlock': {
    'no-fault': predicted('safe', 'SET NX PX on a majority of five, compare-and-delete release on all'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES} (as for its Mutex: the write before the refresh)`),
    'restart-empty': predicted('lost', `${NO_KEY_AFTER_RESTART} on a majority of masters`, {
      expect: 'recovers',
      reason:
        'a failed attempt deletes its partial locks on every master before the next try (lib/redlockMutex/acquire.js), 10 ms later: split votes last one attempt, not a TTL',
    }),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': revised(
      predicted(
        'may-lose',
        'an attempt waits for every master (`Promise.all`) and checks no validity: one that waited out the pause counts the votes the four live masters gave before it — keys that expired while it waited — so it can return holding a lock that another client takes at the same time (when another client retries just then)',
        {
          expect: 'stalls',
          reason:
            "RedlockMutex awaits every master with `Promise.all` on each attempt; with the README's clients a reply from the paused master comes only when it resumes, so no acquire completes for the pause while clients wait",
        },
      ),
      "predicted safe (a paused master only delays; a majority still decides). Measured lost in one run (`--lock=redis-semaphore-redlock --nemesis=pause-node --seed=252025697`: INVALID, 1 lost update): p0's acquire sent SET NX at 10.70 s, four masters granted it with a 2 s TTL, the fifth was paused until 13.15 s; at 13.13 s `Promise.all` returned and p0 took its lock — whose keys had expired at 12.70 s — and 40 ms later p2's retry won the four empty masters: two holders. The `--lock=all` run of the same cell (seed 782519096) stalled but lost nothing: the double grant needs a waiter that had the quorum before the pause and another that retries right after it, so the cell expects 'may lose'. A Redlock without the validity check turns one slow master into a double grant",
    ),
  },
  'redlock-universal': {
    'no-fault': predicted(
      'safe',
      'SET NX PX and a compare-and-delete release on one Redis; its short retry budget (4 tries, 100 ms apart) only makes more acquires give up',
    ),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}: the README's \`signal.aborted\` check passes, because the overdue think timer runs before the overdue extension (armed 0.8 × TTL after the acquire)`,
    ),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART}; the README's client queues commands while Redis is down, so the circuit breaker sees no errors and stays closed`,
    ),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  'redis-lock': {
    'no-fault': predicted(
      'safe',
      "SET NX PX; its release is a plain DEL, but without a fault the holder's clock check (`lockTimeoutValue > Date.now()`) only lets it through while its own key is still there",
    ),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}; its done() then sees its own clock past the expiry and sends no DEL, so the successor's lock survives (no cascade)`,
    ),
    'restart-empty': predicted('lost', NO_KEY_AFTER_RESTART),
    clock: predicted(
      'lost',
      `${CLOCK_EXPIRES_KEY}; then the first holder's done() — its own clock did not move — sends a plain DEL that removes the successor's lock, letting a third client in while the second is inside (errorception/redis-lock#29): more overlaps than the fault's hits`,
    ),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  'simple-redis-mutex': {
    'no-fault': predicted('safe', 'SET NX PX and a compare-and-delete release; its INCR tokens only grow'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES}: nothing checks the lock before acting`),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART}; its token counter lives in the same Redis and restarts at 1, which breaks the token's promise too`,
    ),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    fencing: predicted(
      'safe',
      "its INCR token grows from each holder to the next: the successor writes with a larger one, and the resumed holder's write is refused as stale",
    ),
    'restart-fenced': predicted(
      'lost',
      "the restart wipes the token counter with the lock: the next holder's INCR gives 1, below every token the resource has seen. The fence refuses those writes (the data holds) — but the stale holder's larger token is still admitted after the successor's small one, and the token-order checker finds a grant whose token went backwards: INVALID either way",
    ),
    'kill-session': construction('n/a', NO_SESSION),
    'pause-master': construction('n/a', NO_MASTERS),
  },
  'etcd3-lock': {
    'no-fault': predicted('safe', 'a create-if-absent txn on etcd, the key on a lease'),
    'pause-holder': predicted(
      'lost',
      "the holder's process keeps the lease alive; paused past its TTL, etcd expires the lease and deletes the key, another client creates it, and on SIGCONT the holder writes — the Lock cannot tell it (its lease is private)",
    ),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      'the fault cannot reach it: the LD_PRELOAD clock shim cannot move a Go binary (etcd), and leases count down on the monotonic clock',
    ),
    fencing: predicted(
      'safe',
      "the key's create revision grows with every holder (etcd's revision is global and only grows): the resumed holder's write carries a smaller one and is refused as stale",
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  },
  'advisory-lock': {
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
} as const satisfies Record<string, Row>;
