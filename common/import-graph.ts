import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The house's rooms and which imports which, read from the source: every relative import of a production file
 * (value and type; `import … from '…'`, `export … from '…'`, `import '…'` and inline `import('…')`, the type form
 * included — `store/test-json.ts` once reached up into `harness/` that way, unseen by a test that read `from` only).
 * A room is a top-level folder, or a file at the top (`cli.ts`, `index.ts`). The docs generator writes
 * docs/architecture.md's room list from it and test/folder-ties.test.ts keeps the rooms layered with it, so the map
 * and the check read the same graph. It lives on the ground floor and imports nothing of the project, so both may.
 */

/** One import: the file and line that make it, and the repo-relative path it names. */
export interface ImportEdge {
  file: string;
  line: number;
  target: string;
}

/** Files of code that are not the package's: tests, examples, the tool configs at the top. */
const NOT_PRODUCTION = /^(test|examples|node_modules)\/|\.test\.ts$|^\.|^(eslint\.config\.js|vitest\.config\.ts)$/;

/** Every tracked production file of code (TypeScript or JavaScript), repo-relative, sorted. */
export function productionFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '*.ts', '*.js', '*.mjs', '*.cjs'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !NOT_PRODUCTION.test(f) && fs.existsSync(path.join(root, f)))
    .sort();
}

/**
 * The one room that spans two floors: a fault is one folder (`faults/<name>/`), whose facts and judge the checkers
 * read (low) and whose injection uses the nemesis's machinery (high). The injections, every `faults/<name>/inject.ts`,
 * are therefore a room of their own, named by that pattern, above nemesis/; the rest of faults/ stays below checkers/.
 */
export const INJECTIONS = 'faults/*/inject.ts';
const INJECTION = /^faults\/[^/]+\/inject\.ts$/;

/**
 * The room a repo-relative path belongs to: its first folder, or the file itself when it sits at the top; a fault's
 * injection is in INJECTIONS.
 */
export function roomOf(file: string): string {
  if (INJECTION.test(file)) return INJECTIONS;
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

// A specifier after `from`, after a bare `import`, or inside `import(…)`; relative ones only (packages are no room).
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"]+)\1/g;

/**
 * The relative imports `text` (the body of repo-relative `file`) makes. A line that is a comment (`//`, or a `*`
 * line of a block comment) is skipped, so a comment quoting an import is no edge.
 */
export function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(\/\/|\*|\/\*)/.test(lines[i])) continue;
    for (const m of lines[i].matchAll(IMPORT)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]));
      edges.push({ file, line: i + 1, target });
    }
  }
  return edges;
}

/** Room → the rooms it imports, each with the first import (by file, then line) that ties them. */
export type RoomGraph = Map<string, Map<string, ImportEdge>>;

/** The room graph of the given files (repo-relative, read under `root`); every file's room is a node. */
export function roomGraph(root: string, files: readonly string[] = productionFiles(root)): RoomGraph {
  const graph: RoomGraph = new Map();
  for (const file of files) {
    const from = roomOf(file);
    const out = graph.get(from) ?? new Map<string, ImportEdge>();
    graph.set(from, out);
    for (const edge of importsOf(file, fs.readFileSync(path.join(root, file), 'utf8'))) {
      const to = roomOf(edge.target);
      if (to !== from && to !== '..' && to !== 'node_modules' && !out.has(to)) out.set(to, edge);
    }
  }
  return graph;
}

/** A cycle of rooms as the imports that close it, in order (a → b, b → …, … → a); null when the graph has none. */
export function findCycle(graph: RoomGraph): ImportEdge[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: ImportEdge[] = [];
  const visit = (room: string): ImportEdge[] | null => {
    state.set(room, 'open');
    for (const [to, edge] of graph.get(room) ?? []) {
      stack.push(edge);
      if (state.get(to) === 'open') return stack.slice(stack.findIndex((e) => roomOf(e.file) === to));
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
      stack.pop();
    }
    state.set(room, 'done');
    return null;
  };
  for (const room of [...graph.keys()].sort()) {
    const found = state.has(room) ? null : visit(room);
    if (found) return found;
  }
  return null;
}

/**
 * Each room's floor: 0 for a room that imports no other, else one above the highest room it imports (the longest
 * path down). A room imported but holding no production file (`test/`, reached by a benchmark's fixtures) is on 0.
 * Throws on a cycle, naming the imports that close it, since a cycle has no floors.
 */
export function floors(graph: RoomGraph): Map<string, number> {
  const cycle = findCycle(graph);
  if (cycle) throw new Error(`the rooms import each other in a circle: ${describeCycle(cycle)}`);
  const floor = new Map<string, number>();
  const of = (room: string): number => {
    const known = floor.get(room);
    if (known !== undefined) return known;
    const below = [...(graph.get(room)?.keys() ?? [])].map(of);
    const f = below.length ? Math.max(...below) + 1 : 0;
    floor.set(room, f);
    return f;
  };
  for (const room of graph.keys()) of(room);
  return floor;
}

/**
 * The edges of a cycle, each with its file and line: `store/test-json.ts:54 imports harness/target-session.ts;
 * harness/analyze.ts:9 imports store/run-dir.ts` (the one a type named inline made, since undone).
 */
export function describeCycle(cycle: readonly ImportEdge[]): string {
  return cycle.map((e) => `${e.file}:${e.line} imports ${e.target}`).join('; ');
}
