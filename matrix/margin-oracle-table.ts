import { cellText } from './remedy-oracle-table.ts';
import { MARGINS } from './margin-oracle.ts';

/**
 * docs/matrix.md's table of the margin cells (matrix/margin-oracle.ts), written from the rows' data so the page
 * cannot drift from them: each lock's margin, the threshold it sits beside, and the prediction with its reason.
 */
export function marginOracleMarkdown(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| lock | margin | threshold | expected | why (written before the first run) |',
    '|---|---|---|---|---|',
    ...MARGINS.map(
      ({ lock, margin }) =>
        `| \`${lock}\` | ${esc(margin.title)} (\`${margin.id}\`) | ${esc(margin.threshold)} | ${cellText(margin.cell)} | ${esc(margin.cell.why ?? '')} |`,
    ),
  ].join('\n');
}
