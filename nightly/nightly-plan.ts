import type { FaultName } from '../faults/fault-names.ts';
import type { UserExpectation } from './expectations.ts';
import { inNightlySample } from './nightly-library-sample.ts';
import { matrixPlan } from '../matrix/matrix.ts';
import type { CellColumn } from '../matrix/cell-decision.ts';
import type { MatrixTables } from '../matrix/matrix-columns.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import type { MatrixTable } from '../matrix/matrix-cell.ts';
import { ORACLE_COLUMNS } from '../matrix/oracle.ts';

/** One cell the nightly job knows of, in its stable order, with the expectation it applies and where that came from. */
export interface PlannedCell {
  /** Position in the unsharded plan: shards and merges keep this order. */
  index: number;
  lock: string;
  fault: string;
  fencing: boolean;
  column: string;
  col: CellColumn;
  /** The oracle table the cell is from, with its column id; absent for a user's cell of its own. */
  table?: MatrixTable;
  columnId?: string;
  oracle: OracleCell;
  /** `oracle`, or the user's file and line (`fencepost.expectations.json:7`). */
  from: string;
  /** The user's reason, when they gave one. */
  why?: string;
}

/**
 * A cell's identity across shards, merges and baselines. The fault table's cells (and a user's own) are lock ×
 * fault × fencing, as they always were; a remedy-table cell is its lock × scenario id, since several scenarios share
 * one fault (the watchdog's pause, the restarts' restart-empty, long work's none) and would otherwise collide; a
 * margin cell its lock × margin id, as several margins run one fault at different rates.
 */
export const cellKey = (c: {
  lock: string;
  fault: string;
  fencing: boolean;
  table?: MatrixTable;
  columnId?: string;
}) =>
  c.table === 'remedies' || c.table === 'margins'
    ? `${c.lock}|${c.table}:${c.columnId}`
    : `${c.lock}|${c.fault}|${c.fencing ? 'fenced' : 'plain'}`;

/**
 * The oracle's tables (`--matrix`, default both: the fault table, then the failure modes and remedies) — of the npm
 * libraries' rows, the nightly's sample of the rows whose turn it is (`libraryTurn`; 'all': every sampled row;
 * nightly-library-sample.ts) — with the user's expectations applied: an entry naming a fault-table cell (lock ×
 * fault × fencing) replaces its expectation (and measures it, even one the oracle decides by construction); any
 * other entry (a plugin lock, a fault the fault table has no column for) is a cell of its own, after the tables, in
 * the file's order.
 */
export function nightlyPlan(
  user: readonly UserExpectation[],
  tables: MatrixTables = 'all',
  libraryTurn: number | 'all' = 'all',
): PlannedCell[] {
  const byKey = new Map(user.map((u) => [cellKey(u), u]));
  const plan: PlannedCell[] = matrixPlan(tables).map(({ lock, col, oracle }, index) => {
    const fault = col.faults.join(',') || 'none';
    const base = {
      index,
      lock,
      fault,
      fencing: col.fencing,
      column: col.title,
      col,
      table: col.table,
      columnId: col.id,
    };
    const u = col.table === 'faults' ? byKey.get(cellKey({ lock, fault, fencing: col.fencing })) : undefined;
    if (!u) return { ...base, oracle, from: 'oracle' };
    byKey.delete(cellKey(u));
    return {
      ...base,
      col: withMaxStall(col, u),
      oracle: { decided: 'measured', expect: u.expect },
      from: u.from,
      ...(u.why ? { why: u.why } : {}),
    };
  });
  // The npm libraries' rows come as the nightly's sample of their cells (nightly-library-sample.ts says why).
  const sampled = plan.filter((p) => inNightlySample(p, libraryTurn)).map((p, index) => ({ ...p, index }));
  plan.length = 0;
  plan.push(...sampled);
  for (const u of user.filter((u) => byKey.has(cellKey(u)))) {
    const faults = u.fault === 'none' ? [] : [u.fault as FaultName];
    // The oracle's cap on the interval for this fault (restart-empty must fire often) applies to the user's cells too.
    const like = ORACLE_COLUMNS.find((c) => c.faults.join(',') === faults.join(','));
    const column = `${u.fault === 'none' ? 'no fault' : u.fault}${u.fencing ? ' + --fencing' : ''}`;
    plan.push({
      index: plan.length,
      lock: u.lock,
      fault: u.fault,
      fencing: u.fencing,
      column,
      col: withMaxStall(
        {
          faults,
          fencing: u.fencing,
          ...(like?.maxIntervalMs !== undefined ? { maxIntervalMs: like.maxIntervalMs } : {}),
          ...(like?.minThinkTtlFraction !== undefined ? { minThinkTtlFraction: like.minThinkTtlFraction } : {}),
        },
        u,
      ),
      oracle: { decided: 'measured', expect: u.expect },
      from: u.from,
      ...(u.why ? { why: u.why } : {}),
    });
  }
  return plan;
}

/** A user's `maxStallMs` reaches the cell's runs as `--max-stall`, after the column's own options. */
function withMaxStall(col: CellColumn, u: UserExpectation): CellColumn {
  if (u.maxStallMs === undefined) return col;
  return { ...col, overrides: { ...col.overrides, maxStallMs: u.maxStallMs } };
}

/** What a cell's run costs beside its clients' time (boot, start-up, teardown, checking), seconds: shardSlice's weight. */
export const CELL_OVERHEAD_S = 5;

/** A measured cell's weight for sharding: its runs' time limit (a scenario's floor over the night's) and its overhead. */
export function cellWeightS(c: PlannedCell, timeLimitS: number): number {
  return CELL_OVERHEAD_S + Math.max(timeLimitS, c.col.minTimeLimitS ?? 0);
}

/**
 * This machine's slice, balanced by time: the measured cells, heaviest first (their time limit: the remedy
 * table's long-work cells run 30 s, a fault-table cell the night's 10), each go to the shard with the least time so
 * far (ties: the lower index) — every machine computes the same split from the plan and --time-limit alone, so
 * shards are deterministic, disjoint, and cover every measured cell. Each keeps its cells in plan order. Cells
 * decided by construction start nothing, so every shard keeps them (a merge takes them once).
 */
export function shardSlice(
  plan: readonly PlannedCell[],
  shard: { index: number; count: number } | null,
  timeLimitS: number,
): PlannedCell[] {
  if (!shard) return [...plan];
  const load = new Array<number>(shard.count).fill(0);
  const owner = new Map<number, number>();
  const measured = plan
    .filter((c) => c.oracle.decided === 'measured')
    .map((c) => ({ c, w: cellWeightS(c, timeLimitS) }))
    .sort((a, b) => b.w - a.w || a.c.index - b.c.index);
  for (const { c, w } of measured) {
    let lightest = 0;
    for (let i = 1; i < load.length; i++) if (load[i] < load[lightest]) lightest = i;
    load[lightest] += w;
    owner.set(c.index, lightest + 1);
  }
  return plan.filter((c) => c.oracle.decided === 'construction' || owner.get(c.index) === shard.index);
}
