import { cellText } from './remedy-oracle-table.ts';
import { MARGINS } from './margin-oracle.ts';

/**
 * docs/matrix.md's table of the margin cells (matrix/margin-oracle.ts), written from the rows' data so the page
 * cannot drift from them: each lock's margin, the threshold it sits beside, and the prediction with its reason — and,
 * beside it, never in its place, what a run measured where it differed.
 */
export function marginOracleMarkdown(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| lock | margin | threshold | expected | why (written before the first run), and what runs showed where it differed |',
    '|---|---|---|---|---|',
    ...MARGINS.map(
      ({ lock, margin }) =>
        `| \`${lock}\` | ${esc(margin.title)} (\`${margin.id}\`) | ${esc(margin.threshold)} | ${cellText(margin.cell)} | ${esc(margin.cell.why ?? '')}${margin.cell.revised ? ` **Measured since:** ${esc(margin.cell.revised)}` : ''} |`,
    ),
  ].join('\n');
}
