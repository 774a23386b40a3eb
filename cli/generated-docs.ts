import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  exitCodesText,
  faultsMarkdown,
  faultStoriesMarkdown,
  optionsMarkdown,
  protocolTimeoutsMarkdown,
  subcommandsMarkdown,
  timingMarkdown,
} from './cli-reference.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { columnsOnlyInMatrix, faultOracleMarkdown, README_COLUMNS } from '../matrix/fault-oracle-table.ts';
import { matrixPlan } from '../matrix/matrix.ts';
import type { MatrixTables } from '../matrix/matrix-columns.ts';
import { tallyLine } from '../matrix/matrix-tally.ts';
import { remedyOracleMarkdown } from '../matrix/remedy-oracle-table.ts';
import { marginOracleMarkdown } from '../matrix/margin-oracle-table.ts';
import { choosingMarkdown } from '../matrix/choosing-page.ts';
import { roomsMarkdown } from '../matrix/rooms.ts';
import { fieldTableMarkdown } from '../common/file-format.ts';
import { TEST_FORMAT } from '../store/test-json.ts';
import { RESULTS_FORMAT } from '../store/results-json.ts';
import { MATRIX_FORMAT } from '../matrix/matrix-json.ts';
import { NIGHTLY_FORMAT } from '../nightly/nightly-result.ts';
import { BUNDLE_JSON_FORMAT } from '../repro/bundle-format.ts';
import { MANIFEST_FORMAT } from '../workloads/foreign/manifest.ts';
import { SCENARIO_FILE } from '../scenario/scenario-file.ts';
import { TARGET_FILE } from '../target/target-file.ts';

/**
 * The parts of the docs that restate the code, written from it: the oracle's tables and cell counts, every CLI
 * option and subcommand, the faults, the timing rules, the protocol's timeouts, the names `needs` accepts, the code's
 * rooms and their floors (matrix/rooms.ts). Each sits in its page between `<!-- gen:NAME -->` and
 * `<!-- /gen:NAME -->`. `npm run docs:generate` rewrites them after a change to the code; cli/generated-docs.test.ts
 * fails until the pages say what the code says (Maelstrom's `doc/workloads.md` is generated from its source the same
 * way).
 */

/** A table's size from the oracle data: measured cells, cells decided by construction, refusals among those. */
function size(tables: MatrixTables) {
  const plan = matrixPlan(tables);
  const measured = plan.filter((p) => p.oracle.decided === 'measured').length;
  const refusals = plan.filter((p) => p.oracle.decided === 'construction' && p.oracle.expect === 'refuse').length;
  return { measured, construction: plan.length - measured, refusals };
}

/** The oracle's cell counts, as the matrix and nightly pages quote them inline. */
export function matrixCounts(): Record<'measured' | 'construction' | 'closing' | 'nightly', string> {
  const f = size('faults');
  const r = size('remedies');
  const m = size('margins');
  const a = size('all');
  return {
    measured: `${f.measured} in the fault table, ${r.measured} in the remedy table, ${m.measured} margins`,
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
    nightly: `both tables and the margins — ${a.measured} measured cells (${f.measured} + ${r.measured} + ${m.measured}) and ${a.construction} decided by construction`,
  };
}

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * A file of examples/ as a fenced block, from its first import (its header says how to run it from here): the docs
 * show the code a test runs, not a copy that drifts (testcontainers' docs include their snippets the same way).
 */
function example(file: string, lang: string): () => string {
  return () => {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').trimEnd().split('\n');
    const from =
      lang === 'json'
        ? 0
        : Math.max(
            0,
            lines.findIndex((l) => /^(import |from |package |public )/.test(l)),
          );
    return [`\`\`\`${lang}`, ...lines.slice(from), '```'].join('\n');
  };
}

/** Every generated part by name: a block (a table, on lines of its own) or inline text. */
export const GENERATED: Readonly<Record<string, { block: boolean; text: () => string }>> = {
  'fault-oracle': { block: true, text: () => faultOracleMarkdown() },
  'fault-oracle-readme': { block: true, text: () => faultOracleMarkdown(README_COLUMNS) },
  'matrix-only-columns': { block: false, text: columnsOnlyInMatrix },
  'remedy-oracle': { block: true, text: remedyOracleMarkdown },
  'margin-oracle': { block: true, text: marginOracleMarkdown },
  measured: { block: false, text: () => matrixCounts().measured },
  construction: { block: false, text: () => matrixCounts().construction },
  closing: { block: false, text: () => matrixCounts().closing },
  nightly: { block: false, text: () => matrixCounts().nightly },
  options: { block: true, text: optionsMarkdown },
  subcommands: { block: true, text: subcommandsMarkdown },
  timing: { block: true, text: timingMarkdown },
  'exit-codes': { block: false, text: exitCodesText },
  faults: { block: true, text: faultsMarkdown },
  'fault-stories': { block: true, text: faultStoriesMarkdown },
  'protocol-timeouts': { block: true, text: protocolTimeoutsMarkdown },
  'lock-names': { block: false, text: () => code(BUILTIN_LOCKS) },
  'fault-names': { block: false, text: () => code(FAULT_NAMES) },
  'example-my-lock': { block: true, text: example('examples/my-lock.ts', 'ts') },
  'example-python-lock': { block: true, text: example('examples/python-redis-lock.py', 'python') },
  'example-python-manifest': { block: true, text: example('examples/python-redis-lock.json', 'json') },
  rooms: { block: true, text: () => roomsMarkdown(ROOT) },
  choosing: { block: true, text: choosingMarkdown },
  'format-test': { block: true, text: () => fieldTableMarkdown(TEST_FORMAT) },
  'format-results': { block: true, text: () => fieldTableMarkdown(RESULTS_FORMAT) },
  'format-matrix': { block: true, text: () => fieldTableMarkdown(MATRIX_FORMAT) },
  'format-nightly': { block: true, text: () => fieldTableMarkdown(NIGHTLY_FORMAT) },
  'format-bundle': { block: true, text: () => fieldTableMarkdown(BUNDLE_JSON_FORMAT) },
  'format-manifest': { block: true, text: () => fieldTableMarkdown(MANIFEST_FORMAT) },
  'format-scenario': { block: true, text: () => fieldTableMarkdown(SCENARIO_FILE) },
  'format-target': { block: true, text: () => fieldTableMarkdown(TARGET_FILE) },
};

/** The pages and the parts each must carry (a marker taken out of a page is a failure too, not a silent skip). */
export const GENERATED_PAGES: Readonly<Record<string, readonly string[]>> = {
  'README.md': ['fault-oracle-readme', 'matrix-only-columns', 'lock-names'],
  'docs/cli.md': ['options', 'subcommands', 'timing', 'exit-codes'],
  'docs/faults.md': ['faults', 'fault-stories', 'fault-names'],
  'docs/matrix.md': [
    'fault-oracle',
    'remedy-oracle',
    'margin-oracle',
    'measured',
    'construction',
    'closing',
    'format-matrix',
  ],
  'docs/nightly.md': ['nightly', 'format-nightly'],
  'docs/results.md': ['format-test', 'format-results'],
  'docs/reproductions.md': ['format-scenario', 'format-bundle'],
  'docs/targets.md': ['format-target'],
  'docs/protocol.md': ['format-manifest', 'protocol-timeouts', 'example-python-lock', 'example-python-manifest'],
  'docs/your-lock.md': ['example-my-lock'],
  'docs/locks.md': ['lock-names'],
  'docs/architecture.md': ['rooms'],
  'docs/choosing.md': ['choosing'],
};

/** `text` with every generated part it marks rewritten; an unknown or unclosed marker, or a missing one, throws. */
export function withGenerated(text: string, page: string): string {
  let out = text;
  const names = [...text.matchAll(/<!-- gen:([\w-]+) -->/g)].map((m) => m[1]);
  for (const name of GENERATED_PAGES[page] ?? [])
    if (!names.includes(name)) throw new Error(`${page} has no "<!-- gen:${name} -->" marker`);
  for (const name of new Set(names)) {
    const part = GENERATED[name];
    if (!part) throw new Error(`${page}: no generated part is called "${name}"`);
    const open = `<!-- gen:${name} -->`;
    const close = `<!-- /gen:${name} -->`;
    const body = part.block ? `\n\n${part.text()}\n\n` : part.text();
    for (let from = out.indexOf(open); from >= 0; from = out.indexOf(open, from + 1)) {
      const to = out.indexOf(close, from);
      if (to < 0) throw new Error(`${page}: "${open}" has no "${close}"`);
      out = `${out.slice(0, from + open.length)}${body}${out.slice(to)}`;
    }
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const page of Object.keys(GENERATED_PAGES)) {
    const file = path.join(ROOT, page);
    const before = fs.readFileSync(file, 'utf8');
    const after = withGenerated(before, page);
    if (after !== before) fs.writeFileSync(file, after);
    console.log(`${page}: ${after === before ? 'up to date' : 'generated parts rewritten'}`);
  }
}
