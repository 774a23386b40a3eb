import {
  construction,
  measured,
  predicted,
  type LivenessExpectation,
  type OracleCell,
  type RemedyScenarioId,
} from './oracle-cell.ts';
import { NO_HARNESS_RETRY, NO_PAIR, NO_REDIS, NO_TOKEN, NO_WATCHDOG } from './common-cells.ts';

/**
 * The remedy table's cells many locks share (matrix/remedy-oracle.ts has the scenarios): a lock's own folder builds
 * its remedy cells from these.
 */
type Row = Record<RemedyScenarioId, OracleCell>;

export const NO_RETRY_REMEDY = construction('refuse', NO_HARNESS_RETRY);

/** redlock-npm with our loop around single package attempts: each failed try releases its partial locks at once. */
export const RETRY_RECOVERS: LivenessExpectation = {
  expect: 'recovers',
  reason:
    'each try is one package round (retryCount 0), whose failure releases its partial locks at once, and the next try comes 100 ± 50 ms later: split votes last one round, not a TTL',
};

export const redisLike = (failover: OracleCell, watchdog: boolean): Row => ({
  failover,
  'long-work': measured('lost'),
  'long-work-watchdog': watchdog ? measured('safe') : construction('refuse', NO_WATCHDOG),
  // The watchdog cannot renew while its process is stopped: the lease runs out and the resumed holder writes.
  'pause-watchdog': watchdog ? measured('lost') : construction('refuse', NO_WATCHDOG),
  'restart-delay': measured('safe'),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': measured('safe'),
  'delay-write': measured('lost'),
  'delay-write-fenced': construction('refuse', NO_TOKEN),
  'failover-fenced': failover.expect === 'n/a' ? failover : construction('refuse', NO_TOKEN),
});

/** A lock with a fencing token and a lease kept alive by its client library (etcd keep-alives, ZooKeeper pings). */
export const tokenLock = (): Row => ({
  failover: construction('n/a', NO_PAIR),
  // The library renews the lease/session every TTL/3 by itself: long work does not outlive it.
  'long-work': measured('safe'),
  'long-work-watchdog': construction('refuse', NO_WATCHDOG),
  'pause-watchdog': construction('refuse', NO_WATCHDOG),
  'restart-delay': construction('n/a', NO_REDIS),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': construction('n/a', NO_REDIS),
  'delay-write': measured('lost'),
  'delay-write-fenced': measured('safe'),
  'failover-fenced': construction('n/a', NO_PAIR),
});

export const REDLOCK_NO_PAIR = construction(
  'n/a',
  `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
);

export const FAILOVER_LOSES = predicted(
  'lost',
  'the replica is promoted without the key (the fault cuts replication first), so another client acquires on it while the holder is inside its section',
);

export const DELAYED_WRITE_LANDS = predicted(
  'lost',
  "the holder's write is held past its lease; another client takes the lock and writes; then the held write arrives — no token to refuse it",
);

export const RESTART_DELAY_HOLDS = predicted(
  'safe',
  'the restarted master stays down for a TTL, so every lease it granted has run out before it answers again: nobody is granted a lock its holder still uses',
);

export const AOF_HOLDS = predicted(
  'safe',
  'with appendfsync always the restarted master comes back with its keys, the holder still owns its lock',
);

/** A lock that renews itself: --watchdog is refused, so both watchdog cells are too. */
export const SELF_RENEWING = {
  'long-work-watchdog': construction('refuse', NO_WATCHDOG),
  'pause-watchdog': construction('refuse', NO_WATCHDOG),
} as const;
