import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { matrixPlan } from './matrix.ts';
import type { MatrixTables } from './matrix-columns.ts';
import { tallyLine } from './matrix-tally.ts';
import { remedyOracleMarkdown } from './remedy-oracle-table.ts';

/**
 * `npm run readme:tables`: rewrites the README's generated parts from the oracle data — the failure-mode and
 * remedy table (matrix/remedy-oracle.ts) and the cell counts the matrix and nightly sections quote — between their
 * markers. Run it after changing the oracle or adding a built-in lock; matrix/remedy-oracle-table.test.ts fails
 * until the README says what the oracle says.
 */
export const BEGIN = '<!-- remedy-oracle:begin (generated from matrix/remedy-oracle.ts by remedyOracleMarkdown) -->';
export const END = '<!-- remedy-oracle:end -->';

export function withRemedyTable(readme: string): string {
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md has no "${BEGIN}" … "${END}" markers`);
  return `${readme.slice(0, from + BEGIN.length)}\n\n${remedyOracleMarkdown()}\n\n${readme.slice(to)}`;
}

/** A table's size from the oracle data: measured cells, cells decided by construction, refusals among those. */
function size(tables: MatrixTables) {
  const plan = matrixPlan(tables);
  const measured = plan.filter((p) => p.oracle.decided === 'measured').length;
  const refusals = plan.filter((p) => p.oracle.decided === 'construction' && p.oracle.expect === 'refuse').length;
  return { measured, construction: plan.length - measured, refusals };
}

/** The README's inline generated counts, by marker name: `<!-- gen:NAME -->…<!-- /gen:NAME -->`. */
export function readmeCounts(): Record<string, string> {
  const f = size('faults');
  const r = size('remedies');
  const a = size('all');
  return {
    measured: `${f.measured} in the fault table, ${r.measured} in the remedy table`,
    construction: `${f.construction} in the fault table, ${r.construction} in the remedy table`,
    closing: `\`${tallyLine({
      measured: a.measured,
      matched: a.measured,
      failed: 0,
      construction: a.construction,
      refusals: a.refusals,
      refused: a.refusals,
      allMatched: true,
    })}\``,
    nightly: `both tables — ${a.measured} measured cells (${f.measured} + ${r.measured}) and ${a.construction} decided by construction`,
  };
}

export function withCounts(readme: string): string {
  let out = readme;
  for (const [name, text] of Object.entries(readmeCounts())) {
    const open = `<!-- gen:${name} -->`;
    const close = `<!-- /gen:${name} -->`;
    const from = out.indexOf(open);
    const to = out.indexOf(close);
    if (from < 0 || to < from) throw new Error(`README.md has no "${open}" … "${close}" markers`);
    out = `${out.slice(0, from + open.length)}${text}${out.slice(to)}`;
  }
  return out;
}

/** Every generated part of the README, as `npm run readme:tables` writes it. */
export const withReadmeTables = (readme: string): string => withCounts(withRemedyTable(readme));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = path.resolve(import.meta.dirname, '..', 'README.md');
  const before = fs.readFileSync(file, 'utf8');
  const after = withReadmeTables(before);
  fs.writeFileSync(file, after);
  console.log(
    after === before
      ? 'README.md: generated tables and counts already up to date'
      : 'README.md: generated parts rewritten',
  );
}
