import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  describeCycle,
  findCycle,
  floors,
  importsOf,
  roomGraph,
  roomOf,
  type ImportEdge,
  type RoomGraph,
} from '../common/import-graph.ts';

/**
 * The layering: the rooms (top-level folders, and `cli.ts`, `index.ts`) stand on floors — a room imports only rooms
 * on lower floors — so a reader can read the house floor by floor, and docs/architecture.md lists them by floor.
 * Counted over production files (tests and examples excluded), every relative import, type imports and inline
 * `import('…')` types included: `store/test-json.ts` once named a type of `harness/` inline while `harness/` imported
 * `store/`, and a check that read only `from '…'` let it by.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A graph from literal edges `a>b` (room a imports room b), each edge made at line 1 of `a/x.ts`. */
function graphOf(...edges: string[]): RoomGraph {
  const graph: RoomGraph = new Map();
  for (const e of edges) {
    const [a, b] = e.split('>');
    if (!graph.has(b)) graph.set(b, new Map());
    const out = graph.get(a) ?? new Map<string, ImportEdge>();
    out.set(b, { file: `${a}/x.ts`, line: 1, target: `${b}/y.ts` });
    graph.set(a, out);
  }
  return graph;
}

describe('the rooms are layered', () => {
  it('no room imports a room on its own floor or above (the room graph has no cycle)', () => {
    const graph = roomGraph(ROOT);
    expect([...graph.values()].reduce((n, out) => n + out.size, 0)).toBeGreaterThan(20);
    const cycle = findCycle(graph);
    expect(cycle && describeCycle(cycle), 'these imports close a circle: move one of them down a floor').toBeNull();
  });

  it('puts the foundation at the bottom and the command line at the top', () => {
    const floor = floors(roomGraph(ROOT));
    expect(floor.get('common')).toBe(0);
    expect(floor.get('store')).toBeLessThan(floor.get('harness')!);
    // A fault's folder spans two floors: its facts and judge below the checkers, its injection above the nemesis.
    expect(floor.get('faults')).toBeLessThan(floor.get('checkers')!);
    expect(floor.get('faults/*/inject.ts')).toBeGreaterThan(floor.get('nemesis')!);
    expect(floor.get('cli.ts')).toBe(Math.max(...[...floor].filter(([r]) => r !== 'bin').map(([, f]) => f)));
  });

  it('reads every kind of import, each with its line, and no import a comment quotes', () => {
    const text = [
      "import { a } from '../history/ops.ts';",
      "import type { B } from '../common/errors.ts';",
      "export { c } from './local.ts';",
      "import '../cluster/side-effect.ts';",
      "  target?: import('../harness/target-session.ts').TargetRecord;",
      "  const m = await import('../report/report.ts');",
      " * as `import('../nightly/nightly.ts')` would",
      "import { d } from 'vitest';",
    ].join('\n');
    expect(importsOf('store/test-json.ts', text).map((e) => `${e.line} ${e.target}`)).toEqual([
      '1 history/ops.ts',
      '2 common/errors.ts',
      '3 store/local.ts',
      '4 cluster/side-effect.ts',
      '5 harness/target-session.ts',
      '6 report/report.ts',
    ]);
    expect(roomOf('cli.ts')).toBe('cli.ts');
    expect(roomOf('nemesis/fault.ts')).toBe('nemesis');
    expect(roomOf('faults/clock/facts.ts')).toBe('faults');
    expect(roomOf('faults/clock/inject.ts')).toBe('faults/*/inject.ts');
  });

  it('names each import that closes a cycle by file and line', () => {
    const cycle = findCycle(graphOf('harness>store', 'store>common', 'store>harness', 'cli.ts>harness'));
    expect(cycle && describeCycle(cycle)).toBe('harness/x.ts:1 imports store/y.ts; store/x.ts:1 imports harness/y.ts');
    expect(() => floors(graphOf('a>b', 'b>c', 'c>a'))).toThrow(
      'the rooms import each other in a circle: a/x.ts:1 imports b/y.ts; b/x.ts:1 imports c/y.ts; c/x.ts:1 imports a/y.ts',
    );
  });

  it('gives each room the floor above the highest room it imports', () => {
    const floor = floors(graphOf('cli.ts>harness', 'cli.ts>common', 'harness>store', 'store>common'));
    expect(Object.fromEntries(floor)).toEqual({ common: 0, store: 1, harness: 2, 'cli.ts': 3 });
  });
});
