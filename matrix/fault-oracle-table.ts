import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { ORACLE, ORACLE_COLUMNS } from './oracle.ts';
import { cellText } from './remedy-oracle-table.ts';

/**
 * The fault table of the oracle (matrix/oracle.ts) in markdown: every built-in lock under no fault, a holder paused
 * past its TTL, a Redis restarted empty, a clock jump and with --fencing — the project's answer, as the README and
 * docs/matrix.md show it. Generated (matrix/generated-docs.ts), so neither page can say something the oracle does not.
 */
export function faultOracleMarkdown(): string {
  return [
    `| | ${ORACLE_COLUMNS.map((c) => c.title).join(' | ')} |`,
    `|---|${ORACLE_COLUMNS.map(() => '---').join('|')}|`,
    ...BUILTIN_LOCKS.map(
      (lock) => `| \`${lock}\` | ${ORACLE_COLUMNS.map((c) => cellText(ORACLE[lock][c.id])).join(' | ')} |`,
    ),
  ].join('\n');
}
