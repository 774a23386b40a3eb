import { construction } from '../oracle-cell.ts';
import { NO_MASTERS, NO_PAIR, NO_REDIS, NO_TOKEN } from '../common-cells.ts';
import { NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';

/** Reasons the three pgbouncer rows share (their row.ts files): cells decided by construction, the same for each. */

export const POOLED_NO_CLOCK =
  'nothing of the lock depends on time: an advisory lock has no TTL for a clock jump to shorten (and the run has no Redis whose clock the fault moves)';

export const POOLED_NOT_KILLED =
  "the CLI refuses kill-session for it: the fault ends the Postgres session named for the holder, for a row whose lock lives in its own direct session (its row's postgresSession, faults/kill-session/inject.ts); through pgbouncer the backend that holds the lock carries the name of whichever client used it last, so aiming it there is a change of that fault, not of this row";

/** The fault table's cells no pgbouncer row's servers, clock or token reach: the same for all three. */
export const POOLED_NOT_HERE = {
  'restart-empty': construction('n/a', NO_REDIS),
  clock: construction('n/a', POOLED_NO_CLOCK),
  fencing: construction('refuse', NO_TOKEN),
  'restart-fenced': construction('n/a', NO_REDIS),
  'pause-master': construction('n/a', NO_MASTERS),
  'kill-session': construction('refuse', POOLED_NOT_KILLED),
} as const;

/** The remedy table's cells that do not depend on the pool mode: no replica, no Redis, no renewal to add, no token. */
export const POOLED_REMEDIES_NOT_HERE = {
  failover: construction('n/a', NO_PAIR),
  ...SELF_RENEWING,
  'restart-delay': construction('n/a', NO_REDIS),
  'restart-retry': NO_RETRY_REMEDY,
  'restart-aof': construction('n/a', NO_REDIS),
  'delay-write-fenced': construction('refuse', NO_TOKEN),
  'failover-fenced': construction('n/a', NO_PAIR),
} as const;
