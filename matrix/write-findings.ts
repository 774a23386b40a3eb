import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rerunLine } from '../store/rerun-line.ts';
import { readTest } from '../store/run-dir.ts';
import { findingsMarkdown, type RunRef } from './findings-page.ts';
import type { MatrixCell } from './matrix-cell.ts';
import { readMatrixJson } from './matrix-json.ts';
import { walkArgv } from '../common/walk-argv.ts';
import { RUN_OPTIONS } from '../harness/run-argv.ts';

/**
 * `npm run findings -- <matrix folder>…`: writes docs/findings.md from the oracle and the cells of the given
 * `--lock=all` runs (each folder's matrix.json; a later folder's cell replaces an earlier one's, so a rerun of a few
 * cells can be laid over a whole matrix). Each cell's run is named by the command that replays it, read from its
 * run folder's test.json.
 */
export function cellKey(c: Pick<MatrixCell, 'lock' | 'table' | 'columnId'>): string {
  return `${c.lock}|${c.table ?? 'faults'}:${c.columnId ?? ''}`;
}

export function readCells(dirs: readonly string[]): Map<string, MatrixCell> {
  const cells = new Map<string, MatrixCell>();
  for (const dir of dirs) {
    const file = path.join(dir, 'matrix.json');
    for (const c of readMatrixJson(file)) if (c.decided !== 'construction') cells.set(cellKey(c), c);
  }
  return cells;
}

/**
 * A cell run's argv as its replay line gives it: without `--results` (the matrix's folder, not the reader's) and each
 * option once, where it last appeared — the last occurrence is the one the run used (harness/option-table.ts), and a
 * cell's argv is the matrix's settings followed by its own, so 22 replay lines read `--time-limit=10 … --time-limit=30`.
 * Walked by option, so a space form goes with its value (`--results out` once left `out` behind, a word the CLI
 * refuses).
 */
export function replayArgv(argv: readonly string[]): string[] {
  const takesValue = (name: string) => RUN_OPTIONS.find((o) => o.name === name)?.kind !== 'bool';
  const items = walkArgv(argv, takesValue);
  return items.flatMap((item, i) => {
    if ('word' in item) return [item.word];
    const later = items.slice(i + 1).some((b) => 'name' in b && b.name === item.name);
    return item.name === 'results' || later ? [] : [...item.argv];
  });
}

function runRefs(cells: Iterable<MatrixCell>): Map<string, RunRef> {
  const refs = new Map<string, RunRef>();
  for (const c of cells) {
    if (!c.runDir || refs.has(c.runDir)) continue;
    try {
      const t = readTest(c.runDir);
      refs.set(c.runDir, {
        replay: rerunLine({ argv: replayArgv(t.argv), lock: t.lock, seed: t.seed }),
      });
    } catch {
      refs.set(c.runDir, {});
    }
  }
  return refs;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dirs = process.argv.slice(2);
  if (!dirs.length) {
    console.error('usage: npm run findings -- <matrix folder (with matrix.json)>…');
    process.exit(254);
  }
  const cells = readCells(dirs);
  const out = fileURLToPath(new URL('../docs/findings.md', import.meta.url));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${findingsMarkdown(cells, runRefs(cells.values()), dirs)}\n`);
  console.log(
    `wrote ${path.relative(process.cwd(), out)} from ${cells.size} measured cells of ${dirs.length} matrix folder(s)`,
  );
}
