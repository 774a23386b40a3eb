import type { PlannedCell } from './nightly-plan.ts';

/**
 * Which cells of the npm lock libraries' rows the nightly runs. `--lock=all` runs every cell of every row; the nightly
 * has a time goal (both tables in ≤ 15 min on one 2-core machine, the slowest of 3 shards in ≤ 6 min:
 * docs/performance.md) that the libraries' 80 measured cells would double. So each library row takes its no-fault cell
 * (the adapter works, the lock holds without faults) and the cell its finding is about (a paused holder where nothing
 * else is); the rest are the matrix's (`--lock=all`). The versions are pinned: a row's cells change only when
 * fencepost does, and the recipe rows and the other languages' libraries run every fault every night. Even a sample
 * of 25 cells put a night at 17.5 min, so the rows also take turns: a night runs the rows of one turn of
 * LIBRARY_TURNS (its seed mod LIBRARY_TURNS, the same on every shard); three nights of the three turns run them all.
 * The redlock package's pinned beta (`redlock-npm`) is sampled too (its 12 cells every night put the slowest turn
 * at 15.2 min: `npm run bench -- nightly-plan`, 2026-12-04). A user's expectation
 * naming any cell keeps it (they asked for it), and a row not listed here is run whole, every night.
 */
export const NIGHTLY_LIBRARY_SAMPLE: Readonly<Record<string, readonly string[]>> = {
  // The redlock package's pinned beta: its self-blocking retry loop (a livelock after a majority restarts empty) and
  // the users' workaround for it (our retry loop around single attempts).
  'redlock-npm': ['no-fault', 'restart-empty', 'restart-retry'],
  // Waits for every master: one paused master stalls it.
  'redlock-v4': ['no-fault', 'pause-master'],
  // The beta's self-blocking retry loop, kept by the fork.
  'redlock-sesame': ['no-fault', 'restart-empty'],
  // Its finding is the paused holder's crash (LostLockError).
  'redis-semaphore': ['no-fault', 'pause-holder'],
  'redis-semaphore-redlock': ['no-fault', 'pause-master'],
  'redlock-universal': ['no-fault', 'pause-holder'],
  // The plain DEL that frees the next holder's lock.
  'redis-lock': ['no-fault', 'clock'],
  // The token that fences (its paused-holder cell, with --fencing), and goes backwards with the restarted counter.
  'simple-redis-mutex': ['no-fault', 'fencing', 'restart-fenced'],
  'etcd3-lock': ['no-fault', 'fencing'],
  // Its paused-holder cell is decided by construction (no lease: the story cannot happen); the killed session is its story.
  'advisory-lock': ['no-fault', 'kill-session'],
};

/** How many nights it takes the sampled library rows to all run once. */
export const LIBRARY_TURNS = 3;

/** Which turn a night is, from its seed (every shard of a night gets the same seed, so the same turn). */
export const libraryTurnOf = (seed: number): number => seed % LIBRARY_TURNS;

/** The sampled library rows that run on `turn`: every LIBRARY_TURNS-th row of the list, from the turn's own. */
export function libraryRowsOf(turn: number): string[] {
  return Object.keys(NIGHTLY_LIBRARY_SAMPLE).filter((_, i) => i % LIBRARY_TURNS === turn);
}

/**
 * Whether the nightly runs this planned cell: every cell of a row not sampled, a user's, and a sampled row's listed
 * ones when the row's turn is the night's (`turn` 'all': every sampled row, whatever the turn).
 */
export function inNightlySample(p: Pick<PlannedCell, 'lock' | 'columnId' | 'from'>, turn: number | 'all'): boolean {
  const sample = NIGHTLY_LIBRARY_SAMPLE[p.lock];
  if (!sample || p.from !== 'oracle') return true;
  if (turn !== 'all' && !libraryRowsOf(turn).includes(p.lock)) return false;
  return p.columnId !== undefined && sample.includes(p.columnId);
}
