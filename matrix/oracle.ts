import type { FaultName } from '../history/fault-names.ts';
import type { BuiltinLock } from '../workloads/lock-names.ts';
import {
  construction,
  measured,
  predicted,
  revised,
  type Expectation,
  type LivenessExpect,
  type LivenessExpectation,
  type OracleCell,
  type OracleColumnId,
} from '../locks/oracle-cell.ts';
import {
  FAIL_FAST_PAUSED_MASTER,
  NO_LOCK,
  NO_MASTERS,
  NO_REDIS,
  NO_SESSION,
  NO_TOKEN,
  NOT_HERE,
} from '../locks/shared-cells.ts';
import { NPM_LIBRARY_ROWS } from './oracle-npm-rows.ts';

/** How an expectation reads in a table or a line: "safe, may starve", "may lose", "refused" — never the enum. */
export function expectWords(e: Expectation): string {
  return e === 'refuse' ? 'refused' : e === 'safe-may-starve' ? 'safe, may starve' : e === 'may-lose' ? 'may lose' : e;
}

/** How a liveness expectation reads in a table or a line: "may livelock", "recovers", "stalls". */
export function livenessWords(e: LivenessExpect): string {
  return e === 'may-livelock' ? 'may livelock' : e;
}

export interface OracleColumn {
  id: OracleColumnId;
  title: string;
  faults: FaultName[];
  fencing: boolean;
  /**
   * Upper bound on --nemesis-interval for this column's runs. restart-empty only bites when the kill lands
   * inside the holder's ~100 ms critical section (30–45 % of attempts here), so a short run needs many attempts.
   */
  maxIntervalMs?: number;
  /**
   * Lower bound on --think for this column's runs, as a fraction of the TTL. A restarted master answers again
   * 100–300 ms after the kill here; with the default 100 ms critical section the holder has always written by
   * then, so the kill "hits" (the holder was inside its section) and still can't cost anything — a lock that
   * survives that survived nothing. 0.4 × TTL keeps the section well inside the lock's validity (the holder does
   * hold the lock, as Redlock defines it) and wider than a restart, which is the failure the spec warns of.
   */
  minThinkTtlFraction?: number;
}

export const ORACLE_COLUMNS: readonly OracleColumn[] = [
  { id: 'no-fault', title: 'no fault', faults: [], fencing: false },
  { id: 'pause-holder', title: 'holder paused > TTL', faults: ['pause-holder'], fencing: false },
  {
    id: 'restart-empty',
    title: 'Redis restart empty',
    faults: ['restart-empty'],
    fencing: false,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  { id: 'clock', title: 'clock jump on Redis', faults: ['clock'], fencing: false },
  { id: 'fencing', title: 'with --fencing (holder paused)', faults: ['pause-holder'], fencing: true },
  // A fencing token kept in the same Redis as the lock (simple-redis-mutex's INCR counter) goes back to 1 when that
  // Redis restarts empty: restart-empty's shape, fenced. Only a Redis row with a token is measured here.
  {
    id: 'restart-fenced',
    title: 'Redis restart empty, --fencing',
    faults: ['restart-empty'],
    fencing: true,
    maxIntervalMs: 500,
    minThinkTtlFraction: 0.4,
  },
  // One of a Redlock's five independent masters SIGSTOPped for --pause (1.5 × TTL): the algorithm needs only a
  // majority, so a library that decides on the first quorum goes on, and one that waits for every master's reply
  // with the README's clients (no command timeout) holds every acquire, extend and release until it resumes.
  { id: 'pause-master', title: 'one Redlock master paused > TTL', faults: ['pause-node'], fencing: false },
  // The Postgres session that holds the holder's advisory lock ended by the server (pg_terminate_backend) while the
  // holder is inside its section: the lock is freed at once, and the holder is not told unless its driver says so.
  { id: 'kill-session', title: "holder's lock session killed", faults: ['kill-session'], fencing: false },
];

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
function etcdLike(): Record<OracleColumn['id'], OracleCell> {
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
function zookeeperLike(): Record<OracleColumn['id'], OracleCell> {
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

/**
 * The oracle of the project's design notes (the expected-outcome table, generated into the README and docs/matrix.md) as data: what a correct harness shows for each strategy under each fault.
 * `--lock=all` runs the measured cells and marks each as matching or contradicting this table. If an unsafe cell
 * shows no anomaly, suspect the fault injection; if a safe cell shows one, suspect the harness.
 */
export const ORACLE: Record<BuiltinLock, Record<OracleColumn['id'], OracleCell>> = {
  none: {
    'no-fault': measured('lost'),
    'pause-holder': construction('lost', NO_LOCK),
    'restart-empty': construction('lost', `${NO_LOCK}; and it runs no Redis, so nothing is restarted`),
    clock: construction('lost', `${NO_LOCK}; and it has no lock server whose clock could move`),
    fencing: construction('n/a', 'no lock, so no token to fence with'),
    'restart-fenced': construction('n/a', 'no lock, so no token to fence with'),
    'pause-master': construction('lost', `${NO_LOCK}; and it runs no Redis master to pause`),
    'kill-session': construction('lost', `${NO_LOCK}; and it holds no lock session`),
  },
  redis: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    ...NOT_HERE,
  },
  redlock: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    'pause-master': FAIL_FAST_PAUSED_MASTER,
    'kill-session': construction('n/a', NO_SESSION),
  },
  // The package as its README uses it (its own retry loop, its defaults). Under restart-empty it loses updates as
  // every Redlock does (no delay: the restarted majority grants the lock again) and, beside that, livelocks.
  'redlock-npm': {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost', REDLOCK_NPM_LIVELOCK),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    // It too resolves on the first quorum (dist/esm/index.js `_attemptOperation`), over fail-fast clients — but its retry
    // loop blocks itself on split votes, and four live masters split more often than five.
    'pause-master': revised(
      predicted(
        'safe',
        'a paused master only delays its answers: a majority of the five still decides every grant, so nothing is granted twice',
        {
          expect: 'may-livelock',
          reason:
            "with one master paused, three of the four live ones must agree, and waiters split them 2–2 easily; the package's retry loop keeps each attempt's partial locks until its last retry, so split waiters block themselves for a TTL — in some runs",
        },
      ),
      "predicted to recover (its clients time a paused master out, a vote against). Measured a stall (`--lock=all`, seed 782519096: the lock free with all 5 clients waiting for 2.0 s from 9.7 s, during the pause of redis[1]): the beta's self-blocking retry loop, which restart-empty shows, needs no restart — one paused master makes the split votes it feeds on",
    ),
    'kill-session': construction('n/a', NO_SESSION),
  },
  etcd: etcdLike(),
  zookeeper: zookeeperLike(),
  // The real libraries of other languages (locks/): each expects what its algorithm promises, as its TS twin above.
  // redis-py's Lock is the single-Redis SET NX PX lock: it loses what --lock=redis loses, and has no token.
  'redis-py': {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    ...NOT_HERE,
  },
  // kazoo and Curator: ZooKeeper's sequential-ephemeral recipe. A holder paused past its session loses its node and
  // writes on when resumed (lost); its czxid fences it.
  kazoo: zookeeperLike(),
  // python-etcd3: a leased key. Paused past its lease, the holder writes on (lost); the create revision fences it.
  'python-etcd3': etcdLike(),
  // etcd's own Go Mutex: a session lease (lost under a pause past it), m.Header().Revision fences.
  'etcd-go': etcdLike(),
  curator: zookeeperLike(),
  // Row + version: the resource itself refuses stale writes, whatever happens to the clients or clocks.
  postgres: {
    'no-fault': measured('safe'),
    'pause-holder': measured('safe'),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: measured('safe'),
    fencing: construction(
      'safe',
      'it is its own fence: the version column is the token, so the fenced run is the holder-paused run again',
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    'pause-master': construction('n/a', NO_MASTERS),
    'kill-session': construction('n/a', 'no lock session to kill: the row + version takes no lock'),
  },
  ...NPM_LIBRARY_ROWS,
};

export { MAX_RERUNS } from '../harness/options.ts';
