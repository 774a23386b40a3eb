import { construction, measured, predicted, type OracleCell } from './oracle-cell.ts';

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
