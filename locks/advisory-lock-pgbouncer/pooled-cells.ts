/** Reasons the three pgbouncer rows share (their row.ts files): cells decided by construction, the same for each. */

export const POOLED_NO_CLOCK =
  'nothing of the lock depends on time: an advisory lock has no TTL for a clock jump to shorten (and the run has no Redis whose clock the fault moves)';

export const POOLED_NOT_KILLED =
  "the CLI refuses kill-session for it: the fault ends the Postgres session named for the holder, for a row whose lock lives in its own direct session (its row's postgresSession, faults/kill-session/inject.ts); through pgbouncer the backend that holds the lock carries the name of whichever client used it last, so aiming it there is a change of that fault, not of this row";
