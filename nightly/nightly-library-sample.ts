import type { LockRow } from '../locks/lock-row.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import type { PlannedCell } from './nightly-plan.ts';
import { MARGINS } from '../matrix/margin-oracle.ts';

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
 * naming any cell keeps it (they asked for it). Each row says which of its cells it samples, or 'every-cell'
 * (locks/<name>/row.ts `nightly`), in the registry's order.
 */
export const NIGHTLY_LIBRARY_SAMPLE: Readonly<Partial<Record<BuiltinLock, readonly string[]>>> = Object.fromEntries(
  BUILTIN_LOCKS.flatMap((lock) => {
    const { nightly }: LockRow = LOCK_ROWS[lock];
    return nightly === 'every-cell' ? [] : [[lock, nightly]];
  }),
);

/** How many nights it takes the sampled library rows to all run once. */
export const LIBRARY_TURNS = 3;

/** Which turn a night is, from its seed (every shard of a night gets the same seed, so the same turn). */
export const libraryTurnOf = (seed: number): number => seed % LIBRARY_TURNS;

/** The sampled library rows that run on `turn`: every LIBRARY_TURNS-th row of the list, from the turn's own. */
export function libraryRowsOf(turn: number): string[] {
  return Object.keys(NIGHTLY_LIBRARY_SAMPLE).filter((_, i) => i % LIBRARY_TURNS === turn);
}

/**
 * Which night a margin cell runs (matrix/margin-oracle.ts): the margins take turns as the library rows do, each on
 * the turn of its place in MARGINS, so a night runs at most 3 of the 7 and three nights run them all. Each runs at
 * least 20 s (+5 s overhead), so a turn adds ~75 s of cells, ~40 s at the default two in parallel: the slowest
 * turn's expected 13.6 min becomes ~14.2 min, under the 15 min goal (docs/performance.md; an estimate, not a night).
 */
export function marginTurnOf(lock: string, id: string | undefined): number {
  return MARGINS.findIndex((m) => m.lock === lock && m.margin.id === id) % LIBRARY_TURNS;
}

/**
 * Whether the nightly runs this planned cell: every cell of a row not sampled, a user's, a sampled row's listed
 * ones when the row's turn is the night's, and a margin on its own turn (`turn` 'all': every sampled row and margin,
 * whatever the turn).
 */
export function inNightlySample(
  p: Pick<PlannedCell, 'lock' | 'columnId' | 'from' | 'table'>,
  turn: number | 'all',
): boolean {
  if (p.table === 'margins' && p.from === 'oracle') return turn === 'all' || marginTurnOf(p.lock, p.columnId) === turn;
  const sample = NIGHTLY_LIBRARY_SAMPLE[p.lock as BuiltinLock];
  if (!sample || p.from !== 'oracle') return true;
  if (turn !== 'all' && !libraryRowsOf(turn).includes(p.lock)) return false;
  return p.columnId !== undefined && sample.includes(p.columnId);
}
