import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import { expectWords, livenessWords, ORACLE_COLUMNS } from './oracle.ts';
import { REMEDIES, REMEDY_ORACLE, REMEDY_SCENARIOS } from './remedy-oracle.ts';

/**
 * The failure-mode/remedy tables of docs/matrix.md, written from the oracle's data so the two cannot drift: a test
 * (cli/generated-docs.test.ts) fails when the page's copy differs from what this returns.
 */

/** One cell as the tables write it: **bold** when measured, (c) when decided by construction. */
export function cellText(o: OracleCell): string {
  const what = expectWords(o.expect);
  if (o.decided !== 'measured') return `${what} (c)`;
  return o.liveness ? `**${what}, ${livenessWords(o.liveness.expect)}**` : `**${what}**`;
}

export function remedyOracleMarkdown(): string {
  const head = `| | ${REMEDY_SCENARIOS.map((s) => s.title).join(' | ')} |`;
  const rule = `|---|${REMEDY_SCENARIOS.map(() => '---').join('|')}|`;
  const rows = BUILTIN_LOCKS.map(
    (lock) => `| \`${lock}\` | ${REMEDY_SCENARIOS.map((s) => cellText(REMEDY_ORACLE[lock][s.id])).join(' | ')} |`,
  );
  const title = (ref: { table: string; id: string }) =>
    ref.table === 'remedies'
      ? REMEDY_SCENARIOS.find((s) => s.id === ref.id)!.title
      : `fault table: ${ORACLE_COLUMNS.find((c) => c.id === ref.id)!.title}`;
  const answers = REMEDIES.map(
    (r) =>
      `| ${r.failure} | ${title(r.broken)} | ${r.remedy} | ${r.remedied ? title(r.remedied) : '—'} | ${r.expect} |`,
  );
  return [
    head,
    rule,
    ...rows,
    '',
    '| failure mode | where it breaks | remedy | where the remedy runs | the oracle expects |',
    '|---|---|---|---|---|',
    ...answers,
  ].join('\n');
}
