import fs from 'node:fs';
import { defineFormat } from '../common/file-format.ts';
import type { MatrixCell } from './matrix-cell.ts';

/** What each field of a matrix cell holds: matrix.json's table, and the base of nightly.json's `cells[]`. */
export const MATRIX_CELL_FIELDS = {
  lock: 'the lock row, by its `--lock` name',
  fault: 'the fault injected, by its `--nemesis` name; `none` for the no-fault column',
  fencing: 'whether the run was fenced',
  runDir: 'the run folder the cell links to (its last run); empty when none ran',
  expected: 'what the oracle expects: `safe`, `lost`, `safe-may-starve`, `may-lose`, `n/a`, `refuse`',
  observed:
    'what the runs showed: `safe`, `lost`, `invalid`, `starved`, `unknown`, `failed`, `refuse`, `accepted`, `not run`',
  matched: 'observed agrees with expected',
  lostUpdates: 'lost updates over the cell’s runs',
  staleWritesRejected: 'writes the resource refused for a stale token',
  acquireP50: 'median acquire latency of ok acquires, ms',
  acquireP99: '99th percentile acquire latency, ms',
  liveness:
    'availability over the cell’s runs: recovery median and max, unrecovered, longest stall; absent when unmeasured',
  promise: 'the lock’s broken promises over the cell’s runs: `broken`, `outlived`, `unknown`, `known`, `why`',
  expectedPromise: 'the oracle’s expectation of the promise column',
  expectedLiveness: 'the oracle’s liveness expectation, when it has one',
  column: 'the column’s heading, when better than the fault’s name',
  table:
    '`faults`, `remedies` or `margins` (a lock’s own clock-rate margin cell): which table the cell is in; absent in older files (read as `faults`)',
  columnId: 'the column’s id in its table',
  note: 'why the cell looks the way it does',
  decided: '`measured` (run) or `construction` (not run: `note` says why); absent in older files (read as `measured`)',
  lockBuild: 'a lock in another language: the fingerprint of the build its run measured (12 hex digits)',
  runs: 'every run of a measured cell, in order: run folder, seed, lost updates, stale writes, what it showed',
} as const satisfies Record<keyof Required<MatrixCell>, string>;

/**
 * matrix.json, a `--lock=all` run's cells (matrix-page.ts writes it), declared once (common/file-format.ts). Its
 * decoder reads any matrix.json in today's shape whatever fencepost wrote it: a cell without `table` is the fault
 * table's (the remedy table came later), one without `decided` was measured (construction cells came later).
 */
export const MATRIX_FORMAT = defineFormat<MatrixCell, MatrixCell[]>({
  file: 'matrix.json',
  what: 'a `--lock=all` run’s cells, a list (one object per cell), beside its `matrix.html`.',
  versionField: null,
  current: 0,
  versions: [
    {
      version: 0,
      what: 'the only one (a list has no field for a number); `table` and `decided` came later, and are filled in when absent',
    },
  ],
  fields: MATRIX_CELL_FIELDS,
  decode: (raw) =>
    (raw as MatrixCell[]).map((c) => ({
      ...c,
      table: c.table ?? 'faults',
      decided: c.decided ?? 'measured',
    })),
});

/** A matrix.json read back through its decoder: the one reader of the file. */
export function readMatrixJson(file: string): MatrixCell[] {
  return MATRIX_FORMAT.decode(JSON.parse(fs.readFileSync(file, 'utf8')), file);
}
