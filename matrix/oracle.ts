import { faultFacts } from '../faults/catalogue.ts';
import type { FaultColumnFacts } from '../faults/fault-column.ts';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { type Expectation, type LivenessExpect, type OracleCell, type OracleColumnId } from '../locks/oracle-cell.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';

/** How an expectation reads in a table or a line: "safe, may starve", "may lose", "refused" — never the enum. */
export function expectWords(e: Expectation): string {
  return e === 'refuse' ? 'refused' : e === 'safe-may-starve' ? 'safe, may starve' : e === 'may-lose' ? 'may lose' : e;
}

/** How a liveness expectation reads in a table or a line: "may livelock", "recovers", "stalls". */
export function livenessWords(e: LivenessExpect): string {
  return e === 'may-livelock' ? 'may livelock' : e;
}

export interface OracleColumn {
  id: OracleColumnId;
  title: string;
  faults: FaultName[];
  fencing: boolean;
  /** Upper bound on --nemesis-interval for this column's runs (the fault's facts say why). */
  maxIntervalMs?: number;
  /** Lower bound on --think for this column's runs, as a fraction of the TTL (the fault's facts say why). */
  minThinkTtlFraction?: number;
}

/** A column each fault declares in its facts (faults/<name>/facts.ts `columns`), with the fault it runs. */
function faultColumn(fault: FaultName, c: FaultColumnFacts): OracleColumn & { place: number } {
  return {
    id: c.id as OracleColumnId, // the catalogue's FaultColumnId: what this fault's facts declare
    title: c.title,
    faults: [fault],
    fencing: c.fencing,
    ...(c.maxIntervalMs === undefined ? {} : { maxIntervalMs: c.maxIntervalMs }),
    ...(c.minThinkTtlFraction === undefined ? {} : { minThinkTtlFraction: c.minThinkTtlFraction }),
    place: c.place,
  };
}

/**
 * The fault table's columns: no fault, then the columns the faults declare, each at its `place` (the order the
 * tables, the pages and the nightly's cells list them in).
 */
export const ORACLE_COLUMNS: readonly OracleColumn[] = [
  { id: 'no-fault', title: 'no fault', faults: [], fencing: false },
  ...FAULT_NAMES.flatMap((f) => (faultFacts(f)?.columns ?? []).map((c) => faultColumn(f, c)))
    .sort((a, b) => a.place - b.place)
    .map(({ place: _place, ...column }) => column),
];

/**
 * The oracle of the project's design notes (the expected-outcome table, generated into the README and docs/matrix.md) as data: what a correct harness shows for each strategy under each fault.
 * `--lock=all` runs the measured cells and marks each as matching or contradicting this table. If an unsafe cell
 * shows no anomaly, suspect the fault injection; if a safe cell shows one, suspect the harness. Each lock's row is
 * in its own folder (locks/<name>/row.ts `faults`).
 */
export const ORACLE = Object.fromEntries(BUILTIN_LOCKS.map((l) => [l, LOCK_ROWS[l].faults])) as Record<
  BuiltinLock,
  Readonly<Record<OracleColumnId, OracleCell>>
>;

export { MAX_RERUNS } from '../harness/options.ts';
