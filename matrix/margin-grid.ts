import { escapeHtml as h } from '../report/html.ts';
import type { MatrixCell } from './matrix-cell.ts';
import { MARGINS } from './margin-oracle.ts';

/**
 * The matrix page's margin cells (matrix/margin-oracle.ts): one row per cell — its lock, the margin (fault, rate,
 * section) and the threshold it sits beside — with the cell as the other tables draw it (`cellHtml`, passed in by
 * the page so the two cannot draw a cell differently).
 */
export function marginGrid(
  cells: readonly MatrixCell[],
  outDir: string,
  cellHtml: (c: MatrixCell | undefined, outDir: string) => string,
): string {
  if (cells.length === 0) return '';
  const threshold = new Map(MARGINS.map(({ lock, margin }) => [`${lock}|${margin.id}`, margin.threshold]));
  const rows = cells.map(
    (c) =>
      `<tr><th>${h(c.lock)}</th><td>${h(c.column ?? c.fault)}</td><td class="aside">${h(threshold.get(`${c.lock}|${c.columnId ?? ''}`) ?? '')}</td>${cellHtml(c, outDir)}</tr>`,
  );
  return (
    `<h2>Clock-rate margins <span class="aside">each lock at its own threshold, a clear margin to one side · observed (expected)</span></h2>` +
    `<p class="aside">A margin cell runs a clock fault at a rate chosen ±0.15 or more from where the lock's own renewal or validity arithmetic breaks (the threshold beside it), with its prediction written before its first run; the cell sets its rate, its critical section (as a fraction of the TTL) and its accounts itself.</p>` +
    `<table class="matrix"><thead><tr><th>lock</th><th>margin</th><th>threshold</th><th>cell</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`
  );
}
