import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import type { OracleColumnId } from '../locks/oracle-cell.ts';
import { ORACLE, ORACLE_COLUMNS } from './oracle.ts';
import { cellText } from './remedy-oracle-table.ts';

/**
 * The fault table of the oracle (matrix/oracle.ts) in markdown: every built-in lock under no fault, a holder paused
 * past its TTL, a Redis restarted empty, a clock jump and with --fencing — the project's answer, as the README and
 * docs/matrix.md show it. Generated (cli/generated-docs.ts), so neither page can say something the oracle does not.
 */
export function faultOracleMarkdown(columns: readonly OracleColumnId[] = ORACLE_COLUMNS.map((c) => c.id)): string {
  const cols = ORACLE_COLUMNS.filter((c) => columns.includes(c.id));
  return [
    `| | ${cols.map((c) => c.title).join(' | ')} |`,
    `|---|${cols.map(() => '---').join('|')}|`,
    ...BUILTIN_LOCKS.map((lock) => `| \`${lock}\` | ${cols.map((c) => cellText(ORACLE[lock][c.id])).join(' | ')} |`),
  ].join('\n');
}

/** The README's columns: the four faults every lock meets and fencing; docs/matrix.md has them all. */
export const README_COLUMNS: readonly OracleColumnId[] = [
  'no-fault',
  'pause-holder',
  'restart-empty',
  'clock',
  'fencing',
];

/** The columns the README leaves to docs/matrix.md, by title. */
export const columnsOnlyInMatrix = (): string =>
  ORACLE_COLUMNS.filter((c) => !README_COLUMNS.includes(c.id))
    .map((c) => `*${c.title}*`)
    .join(', ');
