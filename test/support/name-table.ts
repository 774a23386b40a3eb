import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { productionFiles } from '../../common/import-graph.ts';
import { FAULT_NAMES } from '../../faults/fault-names.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';

/**
 * Issue 43's measure of "adding happens in one place" (test/one-place.test.ts holds it to its lists): for every
 * fault of the catalogue and every lock row, the production files outside its own folder (`faults/<name>/`,
 * `locks/<name>/`) that name it, its table line aside (`faults/catalogue.ts`, `locks/registry.ts`).
 *
 * What "names it" means here, so the count is of code and not of words:
 *   - production files as the floors count them (common/import-graph.ts: tests, examples and docs aside);
 *   - code lines only (a comment line is prose), and the name as a value: a whole string literal (`'kill'`) or an
 *     object key (`kill:` opening a line or after `{` or `,`). Inside a sentence — a help line, a page's words, an
 *     error — it is documentation;
 *   - a fault named under `locks/` is a lock row's fact about it (its cells, keyed by the oracle's columns, and the
 *     faults it runs by default): the product of the two tables, which the row holds (issue 43, item 2);
 *   - six rows share their name with a store or a word the code uses for other things (`redis` the server kind,
 *     `none` the empty fault list): for them only a spelling that can mean the lock counts (`lock === 'redis'`).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const STORE_WORDS = new Set(['none', 'redis', 'etcd', 'zookeeper', 'postgres', 'redlock']);

const esc = (s: string) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');

/** How code spells `name` as a value: a whole string literal or an object key; a store word only beside a lock. */
function spelling(name: string, lockRow: boolean): RegExp {
  const n = esc(name);
  if (lockRow && STORE_WORDS.has(name))
    return new RegExp(`\\block\\w*\\s*(===|!==|:)\\s*(['"\`])${n}\\2|(['"\`])${n}\\3\\s*(===|!==)\\s*[\\w.]*lock\\b`);
  return new RegExp(`(['"\`])${n}\\1|(^|[{,])\\s*${n}\\s*:(?!:)`);
}

const isComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

export type Table = Map<string, string[]>;

/** For each name, the production files outside `ownFolder(name)` and `tableLine` that name it, sorted. */
export function tableOf(
  names: readonly string[],
  files: readonly (readonly [string, string[]])[],
  opts: { ownFolder: (name: string) => string; tableLine: string; exempt?: RegExp; lockRow: boolean },
): Table {
  const table: Table = new Map();
  for (const name of names) {
    const re = spelling(name, opts.lockRow);
    const own = opts.ownFolder(name);
    table.set(
      name,
      files
        .filter(([f]) => !f.startsWith(own) && f !== opts.tableLine && !opts.exempt?.test(f))
        .filter(([, lines]) => lines.some((l) => !isComment(l) && re.test(l)))
        .map(([f]) => f),
    );
  }
  return table;
}

export function readFiles(): (readonly [string, string[]])[] {
  return productionFiles(ROOT).map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n')] as const);
}

export function faultTable(files = readFiles()): Table {
  return tableOf(FAULT_NAMES, files, {
    ownFolder: (f) => `faults/${f}/`,
    tableLine: 'faults/catalogue.ts',
    exempt: /^locks\//,
    lockRow: false,
  });
}

export function lockTable(files = readFiles()): Table {
  return tableOf(Object.keys(LOCK_ROWS), files, {
    ownFolder: (l) => `locks/${l}/`,
    tableLine: 'locks/registry.ts',
    lockRow: true,
  });
}
