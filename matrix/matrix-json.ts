import fs from 'node:fs';
import type { MatrixCell } from './matrix-cell.ts';

/**
 * A `--lock=all` run's matrix.json (matrix-page.ts writes it) read back, in today's shape whatever fencepost wrote
 * it: a cell without `table` is the fault table's (the remedy table came later), one without `decided` was measured
 * (construction cells came later). The one reader of the file.
 */
export function readMatrixJson(file: string): MatrixCell[] {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as MatrixCell[]).map((c) => ({
    ...c,
    table: c.table ?? 'faults',
    decided: c.decided ?? 'measured',
  }));
}
