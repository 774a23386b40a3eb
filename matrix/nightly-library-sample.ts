import type { PlannedCell } from './nightly-plan.ts';

/**
 * Which cells of the npm lock libraries' rows the nightly runs. `--lock=all` runs every cell of every row; the nightly
 * has a time goal (both tables in ≤ 15 min on one 2-core machine, the slowest of 3 shards in ≤ 6 min: README,
 * *Performance*) that the libraries' 80 measured cells would double. So each library row takes its two cells the issue
 * asks every row to show (no fault → VALID; a paused holder) and the cell its finding is about; the rest are the
 * matrix's. A user's expectation naming any cell keeps it (they asked for it), and a row not listed here is run whole.
 */
export const NIGHTLY_LIBRARY_SAMPLE: Readonly<Record<string, readonly string[]>> = {
  // Waits for every master: one paused master stalls it.
  'redlock-v4': ['no-fault', 'pause-holder', 'pause-master'],
  // The beta's self-blocking retry loop, kept by the fork.
  'redlock-sesame': ['no-fault', 'pause-holder', 'restart-empty'],
  // Its finding is the paused holder's crash (LostLockError).
  'redis-semaphore': ['no-fault', 'pause-holder'],
  'redis-semaphore-redlock': ['no-fault', 'pause-holder', 'pause-master'],
  'redlock-universal': ['no-fault', 'pause-holder'],
  // The plain DEL that frees the next holder's lock.
  'redis-lock': ['no-fault', 'pause-holder', 'clock'],
  // The token that fences, and goes backwards with the restarted counter.
  'simple-redis-mutex': ['no-fault', 'pause-holder', 'fencing', 'restart-fenced'],
  'etcd3-lock': ['no-fault', 'pause-holder', 'fencing'],
  // Its paused-holder cell is decided by construction (no lease: the story cannot happen); the killed session is its story.
  'advisory-lock': ['no-fault', 'kill-session'],
};

/** Whether the nightly runs this planned cell: every cell of a row not sampled, a sampled row's listed ones, a user's. */
export function inNightlySample(p: Pick<PlannedCell, 'lock' | 'columnId' | 'from'>): boolean {
  const sample = NIGHTLY_LIBRARY_SAMPLE[p.lock];
  return !sample || p.from !== 'oracle' || (p.columnId !== undefined && sample.includes(p.columnId));
}
