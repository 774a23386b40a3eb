import type { BuiltinLock } from '../workloads/lock-names.ts';
import type { CellShape } from './cell-config.ts';
import type { MatrixTable } from './matrix-cell.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import { ORACLE, ORACLE_COLUMNS } from './oracle.ts';
import { REMEDY_ORACLE, REMEDY_SCENARIOS } from './remedy-oracle.ts';

/**
 * A column of either matrix table as the runner plans it: what the cell's runs set (faults, fencing, the
 * scenario's options, floors and caps) and, per lock, what the oracle expects. The fault table's columns come
 * from matrix/oracle.ts, the failure-mode/remedy table's from matrix/remedy-oracle.ts.
 */
export interface MatrixColumn extends Omit<CellShape, 'strategy' | 'seed' | 'concurrency' | 'timeLimitS'> {
  table: MatrixTable;
  id: string;
  title: string;
  oracle: (lock: BuiltinLock) => OracleCell;
}

export type MatrixTables = 'all' | 'faults' | 'remedies' | 'margins';

export function matrixColumns(tables: MatrixTables): MatrixColumn[] {
  const faults: MatrixColumn[] = ORACLE_COLUMNS.map((c) => ({
    ...c,
    table: 'faults',
    oracle: (lock) => ORACLE[lock][c.id],
  }));
  const remedies: MatrixColumn[] = REMEDY_SCENARIOS.map((s) => ({
    ...s,
    table: 'remedies',
    oracle: (lock) => REMEDY_ORACLE[lock][s.id],
  }));
  return [
    ...(tables === 'all' || tables === 'faults' ? faults : []),
    ...(tables === 'all' || tables === 'remedies' ? remedies : []),
  ];
}
