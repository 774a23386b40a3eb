import { cellKey, shardSlice, type PlannedCell } from '../nightly/nightly-plan.ts';
import type { NightlyResult } from '../nightly/nightly-result.ts';
import { NIGHTLY_TIME_LIMIT_S } from '../nightly/nightly.ts';
import type { Goal } from './outcome.ts';

/** Issue 24's goals: both tables at --time-limit=10 in ≤ 15 min on one machine, ≤ 6 min the slowest of 3 shards. */
export const WHOLE_GOAL_MIN = 15;
export const SHARD_GOAL_MIN = 6;
export const GOAL_SHARDS = 3;

/** How long one measured cell took in a stored night: its wall time, its runs, the night's --time-limit. */
export interface MeasuredCell {
  wallMs: number;
  runs: number;
  timeLimitS: number;
  /** Seconds each run that --stop-on-lost-update ended early lasted (absent or empty: every run went to its limit). */
  stoppedAtS?: number[];
}

export interface CellTime {
  index: number;
  key: string;
  label: string;
  /** Expected wall time at the planned --time-limit, ms; 0 for a cell decided by construction (not run). */
  ms: number;
  /** `measured`: from a stored night; `median`: no night measured it, the median of those that were. */
  from: 'measured' | 'median' | 'not run';
}

/** The --time-limit a night ran with (its settings), else the nightly's default. */
export function timeLimitOf(settings: readonly string[]): number {
  const given = settings.find((s) => s.startsWith('--time-limit='));
  return given ? Number(given.slice('--time-limit='.length)) : NIGHTLY_TIME_LIMIT_S;
}

/**
 * Every measured cell of stored nights, by cellKey, with its wall time (nightly.json `wallMs`); the latest night
 * wins for a cell several measured. Nights written before cells recorded their wall time give none.
 */
export function measuredCells(nights: readonly NightlyResult[]): Map<string, MeasuredCell> {
  const out = new Map<string, MeasuredCell>();
  const byAge = [...nights].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (const n of byAge) {
    const timeLimitS = timeLimitOf(n.settings);
    for (const c of n.cells) {
      if (c.wallMs === undefined || c.decided === 'construction') continue;
      const stoppedAtS = (c.runs ?? []).flatMap((r) => (r.stoppedAtS !== undefined ? [r.stoppedAtS] : []));
      out.set(cellKey(c), {
        wallMs: c.wallMs,
        runs: Math.max(1, c.runs?.length ?? 1),
        timeLimitS,
        ...(stoppedAtS.length ? { stoppedAtS } : {}),
      });
    }
  }
  return out;
}

/**
 * A cell at another --time-limit: what is not the clients' time (boot, set-up, teardown, the checkers: the
 * measured wall time less the runs' client time) stays, and each run's clients take the new limit — or, for a run
 * that --stop-on-lost-update ended early, the time it took, if the new limit leaves it that long (assumed: the same
 * interleaving would find it again as soon).
 */
export function scaledMs(m: MeasuredCell, timeLimitS: number): number {
  const stopped = m.stoppedAtS ?? [];
  const fullRuns = Math.max(0, m.runs - stopped.length);
  const clientMs = (limitS: number) =>
    1000 * (fullRuns * limitS + stopped.reduce((sum, at) => sum + Math.min(at, limitS), 0));
  const overheadMs = Math.max(0, m.wallMs - clientMs(m.timeLimitS));
  return overheadMs + clientMs(timeLimitS);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Each planned cell's expected time at `timeLimitS`: measured when a stored night has it, else the median of the
 * measured ones (said so: a plugin lock or a new column no night has run); null when no cell was measured at all.
 */
export function cellTimes(
  plan: readonly PlannedCell[],
  measured: ReadonlyMap<string, MeasuredCell>,
  timeLimitS: number,
): CellTime[] | null {
  const known = plan
    .filter((p) => p.oracle.decided === 'measured')
    .map((p) => measured.get(cellKey(p)))
    .filter((m): m is MeasuredCell => m !== undefined)
    .map((m) => scaledMs(m, timeLimitS));
  const fallback = median(known);
  if (fallback === null) return null;
  return plan.map((p) => {
    const key = cellKey(p);
    const base = { index: p.index, key, label: `${p.lock} × ${p.column}` };
    if (p.oracle.decided === 'construction') return { ...base, ms: 0, from: 'not run' };
    const m = measured.get(key);
    return m ? { ...base, ms: scaledMs(m, timeLimitS), from: 'measured' } : { ...base, ms: fallback, from: 'median' };
  });
}

export interface PlanTime {
  shard: { index: number; count: number } | null;
  ms: number;
  cells: number;
  /** Of them, cells whose time is the median, not their own measurement. */
  estimated: number;
}

/** The expected wall time of the whole plan, or of one shard of it (nightly/nightly-plan.ts's shardSlice). */
export function planTime(
  plan: readonly PlannedCell[],
  times: readonly CellTime[],
  shard: { index: number; count: number } | null,
  timeLimitS: number,
  parallel = 1,
): PlanTime {
  const mine = new Set(shardSlice(plan, shard, timeLimitS).map((p) => p.index));
  const cells = times.filter((t) => mine.has(t.index) && t.from !== 'not run');
  return {
    shard,
    ms: makespan(
      cells.map((t) => t.ms),
      parallel,
    ),
    cells: cells.length,
    estimated: cells.filter((t) => t.from === 'median').length,
  };
}

/**
 * The wall time of cells taken in order by `parallel` workers (nightly --parallel: each worker takes the next cell
 * when its last one ends); one worker: their sum. The cells' times are as measured — a night run with --parallel
 * measured them under its neighbour's load, a serial night without.
 */
export function makespan(cellsMs: readonly number[], parallel: number): number {
  const free = new Array<number>(Math.max(1, parallel)).fill(0);
  for (const ms of cellsMs) {
    const next = free.indexOf(Math.min(...free));
    free[next] += ms;
  }
  return Math.max(...free);
}

/**
 * The goals, judged only on the plan they are about (`fullPlan`: both tables at the nightly's --time-limit) with
 * every cell of it measured — a verdict from medians is a guess, so it is `skipped`, saying how many cells lack a
 * time. `shards`: the parts of a --shards=3 split, else null (no shard goal).
 */
export function planGoals(
  settings: string,
  whole: PlanTime,
  shards: readonly PlanTime[] | null,
  fullPlan: boolean,
): Goal[] {
  const min = (ms: number) => (ms / 60_000).toFixed(1);
  const judged = (ms: number, limitMin: number): Pick<Goal, 'met' | 'why'> =>
    !fullPlan
      ? { met: 'skipped', why: `the goal is for --matrix=all --time-limit=${NIGHTLY_TIME_LIMIT_S}` }
      : whole.estimated
        ? {
            met: 'skipped',
            why: `${whole.estimated} of ${whole.cells} cells measured by no stored night (their time is the median): give --from a full night`,
          }
        : { met: ms <= limitMin * 60_000 };
  const goals: Goal[] = [
    {
      what: `nightly ${settings}, one machine`,
      goal: `≤ ${WHOLE_GOAL_MIN} min`,
      measured: `${min(whole.ms)} min expected`,
      ...judged(whole.ms, WHOLE_GOAL_MIN),
    },
  ];
  if (shards?.length) {
    const slowest = shards.reduce((a, b) => (b.ms > a.ms ? b : a));
    goals.push({
      what: `nightly ${settings}, slowest of ${shards.length} shards`,
      goal: `≤ ${SHARD_GOAL_MIN} min`,
      measured: `shard ${slowest.shard?.index}: ${min(slowest.ms)} min expected`,
      ...judged(slowest.ms, SHARD_GOAL_MIN),
    });
  }
  return goals;
}
