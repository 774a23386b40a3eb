import {
  construction,
  measured,
  predicted,
  type LivenessExpectation,
  type OracleCell,
  type OracleColumnId,
} from './oracle-cell.ts';

/**
 * The reasons and cells many locks share (a lock's own folder builds its cells from these and locks/oracle-cell.ts).
 */
export const NO_LOCK = 'no lock: there is nothing for the fault to break, the no-fault cell already measures the loss';
export const NO_REDIS = 'the fault cannot reach it: this strategy runs no Redis, so nothing is restarted';
export const NO_TOKEN =
  'no fencing token: the CLI refuses --fencing (checked by running its option validation, nothing started)';
export const NO_MASTERS =
  "no set of independent Redis masters: the column pauses one of a Redlock's five, which this strategy does not have (pausing its only server, or a consensus leader, is another scenario)";
export const NO_SESSION =
  'no lock session to kill: the fault ends the Postgres session that holds an advisory lock, and this strategy holds none';

/** Cells every lock without a Redlock master set, a Redis token or a Postgres session lock has in the new columns. */
export const NOT_HERE = {
  'pause-master': construction('n/a', NO_MASTERS),
  'kill-session': construction('n/a', NO_SESSION),
} as const;

/**
 * With fail-fast clients (a short command timeout, no offline queue: locks/redlock/redlock.ts)
 * a paused master is one vote against per attempt; the other four still make a majority.
 */
export const FAIL_FAST_PAUSED_MASTER = measured('safe', {
  expect: 'recovers',
  reason:
    'its clients give up on a paused master after their 50 ms command timeout, so it counts as one vote against and the four others grant the lock: no stall',
});

/**
 * A library that decides only when every master has answered, over its README's clients (no command timeout, an
 * offline queue): every acquire, extend and release waits for the paused master, for the whole pause (1.5 × TTL).
 */
export const waitsForEveryMaster = (how: string): OracleCell =>
  predicted(
    'safe',
    'a paused master only delays its answers: a majority of the five still decides every grant, so nothing is granted twice',
    {
      expect: 'stalls',
      reason: `${how}; with the README's clients (no command timeout) a reply from the paused master comes only when it resumes, so no acquire completes for the pause's 1.5 × TTL while clients wait: a stall past the TTL`,
    },
  );

/** The remedy table's shared reasons (matrix/remedy-oracle.ts and its npm rows). */
export const NO_WATCHDOG =
  'the CLI refuses --watchdog for it: it keeps its lease alive by itself, or has none (checked by running its option validation, nothing started)';
export const NO_PAIR =
  'the failover fault needs the single-Redis primary + replica of --lock=redis; this strategy has no replica to promote';
export const NO_HARNESS_RETRY =
  "the CLI refuses --retry=harness for it: its client has no retry loop of its own to put in place of its library's (checked by running its option validation, nothing started)";

/**
 * The published redlock package's own retry loop under restart-empty (locks/redlock-npm/redlock-npm.ts): every
 * attempt of one `acquire` reuses its value and the acquire script refuses a key that exists, its own partial locks
 * included; they are released only after the last of its 10 retries. When a majority restarts empty, the waiters
 * split the empty masters' votes, and each is then refused by its own partial locks until they expire a TTL later.
 * Measured in this column's shape (--nemesis-interval=500 --think=800, 20 s): seed 42 stalled 7.3 s (all 5 clients
 * waiting, no fault active, 15 acquires of 11 attempts failed in a row; recovery max 8.0 s), seeds 3 and 4 for 3.3 s
 * and 7.9 s, seeds 1, 2 and 5 not past the TTL (recovery max 2.1 s, 1.6 s, 2.1 s) — docs/matrix.md's table. Not every
 * run: so "may", and the remedy cell (our loop: no stall in 4 seeds, recovery max 0.8 s) is the strict one.
 */
export const REDLOCK_NPM_LIVELOCK: LivenessExpectation = {
  expect: 'may-livelock',
  reason:
    "the package's retry loop keeps each attempt's partial locks until its last retry, and its acquire script refuses its own key: waiters that split the restarted masters' votes each block themselves for a TTL — in some runs, as the interleaving falls",
};

/** A lock on etcd with a monotonic token (a revision): the TS etcd strategy, python-etcd3's Lock, the Go Mutex. */
export function etcdLike(): Record<OracleColumnId, OracleCell> {
  return {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': construction('n/a', NO_REDIS),
    // Not "safe (c)": a run would inject nothing, so it could show nothing either way, as for ZooKeeper below.
    clock: construction(
      'n/a',
      'the fault cannot reach it: the LD_PRELOAD clock shim cannot move a Go binary (etcd) at all, so a run would inject nothing (and its leases count down on the monotonic clock)',
    ),
    fencing: measured('safe'),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  };
}

/** A lock on ZooKeeper with a zxid as token: the TS zookeeper strategy (pzxid), kazoo's Lock and Curator's InterProcessMutex (czxid). */
export function zookeeperLike(): Record<OracleColumnId, OracleCell> {
  return {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      'ZooKeeper expires sessions on a monotonic clock (System.nanoTime): a wall-clock jump cannot reach the lock',
    ),
    fencing: measured('safe'),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  };
}

export const PAUSED_HOLDER_WRITES =
  'a holder paused past its TTL (1.5 × TTL) loses its key to expiry; another client takes the lock and writes; on SIGCONT the holder sends its write';

export const NO_KEY_AFTER_RESTART =
  'the restarted master comes back without the key while its holder is inside its section, so another client is granted the lock';

export const CLOCK_EXPIRES_KEY =
  "the jumped clock expires the holder's key early on the server, so another client takes the lock while the holder is still inside its section";

/** The cells of a Redis lock without a fencing token that no new column reaches. */
export const noTokenNoSession = {
  fencing: construction('refuse', NO_TOKEN),
  'restart-fenced': construction('refuse', NO_TOKEN),
  'kill-session': construction('n/a', NO_SESSION),
} as const;
