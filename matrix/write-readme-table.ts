import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { remedyOracleMarkdown } from './remedy-oracle-table.ts';

/**
 * `npm run readme:tables`: rewrites the README's generated failure-mode and remedy table from the oracle data
 * (matrix/remedy-oracle.ts), between its markers. Run it after changing the oracle or adding a built-in lock;
 * matrix/remedy-oracle-table.test.ts fails until the README says what the oracle says.
 */
export const BEGIN = '<!-- remedy-oracle:begin (generated from matrix/remedy-oracle.ts by remedyOracleMarkdown) -->';
export const END = '<!-- remedy-oracle:end -->';

export function withRemedyTable(readme: string): string {
  const from = readme.indexOf(BEGIN);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md has no "${BEGIN}" … "${END}" markers`);
  return `${readme.slice(0, from + BEGIN.length)}\n\n${remedyOracleMarkdown()}\n\n${readme.slice(to)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = path.resolve(import.meta.dirname, '..', 'README.md');
  const before = fs.readFileSync(file, 'utf8');
  const after = withRemedyTable(before);
  fs.writeFileSync(file, after);
  console.log(after === before ? 'README.md: remedy table already up to date' : 'README.md: remedy table rewritten');
}
