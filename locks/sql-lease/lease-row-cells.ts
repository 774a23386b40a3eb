import { construction, predicted } from '../oracle-cell.ts';
import { NO_MASTERS, NO_PAIR, NO_REDIS, NO_SESSION, NO_TOKEN } from '../common-cells.ts';
import { NO_RETRY_REMEDY } from '../common-remedy-cells.ts';

/**
 * The oracle cells both ShedLock-shaped lease rows share (this folder's row.ts and the database-time variant's):
 * whichever clock decides when a lease ends, these columns do not depend on it. Written before either row's first run.
 */

const NO_KEEP_ALIVE =
  "the CLI refuses --watchdog for it (renews: false): ShedLock's lock provider does not extend a lease while its task runs — lock_until stays lockAtMostFor after the acquire (its KeepAliveLockProvider is an opt-in wrapper, not this row) — checked by running its option validation, nothing started";

export const LEASE_ROW_NO_FAULT = predicted(
  'safe',
  "one row per lock name, taken by a single statement (INSERT … ON CONFLICT DO UPDATE or UPDATE … WHERE lock_until <= now) under the row's lock: a waiter's statement re-reads the row after the holder's commit and finds lock_until ahead. One holder at a time while the clocks agree and no holder outlives its TTL (think 100 ms, TTL 2 s)",
);

/** The fault table's columns that neither variant's servers or token reach. */
export const LEASE_ROW_NOT_HERE = {
  'restart-empty': construction('n/a', NO_REDIS),
  fencing: construction('refuse', NO_TOKEN),
  'restart-fenced': construction('n/a', NO_REDIS),
  'pause-master': construction('n/a', NO_MASTERS),
  'kill-session': construction('n/a', NO_SESSION),
} as const;

/** The remedy table's cells that do not depend on the clock, either: no renewal, no replica, no Redis, no token. */
export const LEASE_ROW_REMEDIES = {
  failover: construction('n/a', NO_PAIR),
  'long-work-watchdog': construction('refuse', NO_KEEP_ALIVE),
  'pause-watchdog': construction('refuse', NO_KEEP_ALIVE),
  'restart-delay': construction('n/a', NO_REDIS),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': construction('n/a', NO_REDIS),
  'delay-write-fenced': construction('refuse', NO_TOKEN),
  'failover-fenced': construction('n/a', NO_PAIR),
} as const;
