import { execFileSync } from 'node:child_process';
import { INJECTIONS, floors, productionFiles, roomGraph, roomOf } from '../common/import-graph.ts';

/**
 * docs/architecture.md's room list: every top-level folder holding code (or the data it reads), and the two files
 * at the top, each with its floor and the rooms it imports — computed from the imports (common/import-graph.ts) —
 * and what it owns, from ROOMS below. The hand-written list it replaces had lost five rooms as they were added; a
 * room ROOMS does not describe now stops `npm run docs:generate` and fails cli/generated-docs.test.ts, naming it.
 */

/** What each room owns, in one sentence: a newcomer's answer to "where is …?". */
export const ROOMS: Readonly<Record<string, string>> = {
  'common/':
    'Small utilities any floor may use: errors and exit codes, free ports, the pid registry and run owner, ' +
    "shutdown, seeded randomness, JSON lines, and the import-graph reader behind this table's floors.",
  'history/':
    'The op vocabulary (ops, process numbering, a stale write), the journal, its reader, the time-order seal and the ' +
    "faults' windows as the history records them; it knows no fault by name.",
  'faults/':
    'Each fault as one folder (`<name>/`): its facts and evidence, declared once (`facts.ts`), its judge ' +
    '(`judge.ts`), how a scenario scripts it (`script.ts`) — its injection too, on a floor of its own ' +
    '(`faults/*/inject.ts`); the one table of the faults ' +
    '(`catalogue.ts`), the evidence reader (`evidence.ts`) and the story steps the judges share (`judging/`).',
  [INJECTIONS]:
    "Each fault's injection, in its folder (`faults/<name>/inject.ts`, an executor the nemesis loads by the " +
    "fault's name): above nemesis/, whose machinery it uses, while the rest of the fault stays below checkers/.",
  'cluster/':
    "The servers and their backends (local processes, Docker containers), provisioning, per-run credentials; `docker/` also holds the node image's recipe.",
  'checkers/':
    'Pure functions of a history: lost updates, overlapping holds, token order, linearizability (`linearizable/`), ' +
    'liveness, the models, and whether each shot of a fault hit (`fault-hits.ts`, asking each fault its judge).',
  'workloads/':
    'The client process and its step loop (free, or driven by a scenario), the loading of a lock (built-in, plugin ' +
    'or manifest), and locks in other languages run as processes (`foreign/`).',
  'target/':
    "A user's own servers as a run's target: the target file, the fault adapters (exec, Docker, Kubernetes), the " +
    'fence proof, the injection guard, and the record a run keeps of it.',
  'store/':
    'The run folder and its records: `test.json` (its type and reader), `results.json`, `results/<lock>/<timestamp>/`, ' +
    '`latest`, the format number, and the rerun line a summary prints.',
  'nemesis/':
    "What the faults' injections stand on: the executor's shape (`fault.ts`), the registry that loads each fault's " +
    '`inject.ts` by name (`fault-registry.ts`), the seeded schedule, the scripted nemesis, the TCP proxies, the clock ' +
    'shim (`clock/`), the server↔server partitions.',
  'index.ts': "The plugin API: what `import … from 'fencepost'` gives a lock's author.",
  'report/':
    "The run's HTML pages, what went wrong in sentences (`findings/`, one file per kind of finding), and the pages' " +
    'script (`client/`).',
  'harness/':
    "A run's options and the parse of its argv (`run-argv.ts`, which every floor that builds runs reads through), the " +
    'run as a plan (`run-plan.ts`: whose servers, how the clients are driven, which nemesis strikes) and the ' +
    'orchestrator that starts it (`run.ts`) with its client pool, the bodies of most subcommands (`*-command.ts`), ' +
    'and the session of a run against a target.',
  'matrix/':
    'The oracle (what each lock should do under each fault and remedy), the matrix runner and its page, the findings ' +
    'page, and this table of rooms (`rooms.ts`).',
  'scenario/':
    "Scripted scenarios: the script's grammar and file, the order its steps may come in, and the driver a run's plan " +
    '(`harness/run-plan.ts`) takes from one (`--scenario`): its clients a step at a time, its strikes scripted.',
  'repro/':
    'Reproductions of a failing run: the bundle (`repro`), running it again (`replay`), shrinking its options ' +
    '(`shrink`), and the scenario extracted from its history.',
  'nightly/':
    "The nightly job: its plan, the user's expectations and known bugs, its JUnit, summary and comparison with " +
    'last night, the shard merge and the Kubernetes emitter.',
  'bench/': 'Benchmarks (`npm run bench`): startup, the checker, detection, overhead, throughput, memory.',
  'cli/':
    'The command line: one module per command (`commands/<name>.ts`: its summary, help, options, parse and run), the ' +
    'table that registers them (`command-table.ts`), the parse, the help, and the docs generator ' +
    '(`generated-docs.ts`, which writes this table).',
  'cli.ts': 'The command: parses the words with the command table and runs the command they name.',
  'bin/': "`fencepost.js`, the package's command: registers tsx, then runs `cli.ts`.",
  'locks/':
    'Every built-in lock, one folder each (`<name>/`: `row.ts` — where its code is, its npm pins or the Debian ' +
    'packages of its library, its cells in both ' +
    'tables, its findings words, its nightly sample — and its strategy or manifest and glue, `npm/` its pins), the ' +
    'registry that lists them (`registry.ts`), the contract every strategy implements (`strategy.ts`), the npm ' +
    'install cache, the oracle cell (`oracle-cell.ts`) and the cells and parts (`parts/`, `python/`) locks share.',
  'scenarios/': 'The shipped scenario scripts (`--scenario=scenarios/<name>.json`): data the run reads, not code.',
  'examples/':
    "The docs' plugin and Python lock, and the gallery of broken locks (`broken/`, `broken-foreign/`) the tests " +
    'expose; outside the floors.',
  'test/':
    'Integration tests, their kits (`support/`), fixtures and the Knossos corpus; outside the floors (unit tests sit ' +
    'beside their files).',
};

/** A file of code, or of the data code reads; a folder holding none (docs/, results/) is no room. */
const CODE = /\.(ts|js|mjs|cjs|py|go|java|c|css|json)$/;

/** The rooms the map must list, as ROOMS spells them: `name/` for a folder, the file's name at the top. */
export function mappedRooms(root: string): string[] {
  const folders = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.includes('/') && !f.startsWith('.') && CODE.test(f))
    .map((f) => (roomOf(f) === INJECTIONS ? INJECTIONS : `${roomOf(f)}/`));
  const atTop = productionFiles(root).filter((f) => !f.includes('/'));
  return [...new Set([...folders, ...atTop])];
}

/** The rooms among `rooms` that `table` says nothing of. */
export function withoutSentence(rooms: readonly string[], table: Readonly<Record<string, string>> = ROOMS): string[] {
  return rooms.filter((r) => !Object.hasOwn(table, r));
}

/** The rooms' table, lowest floor first; rooms outside the floors (no production code) at the end. */
export function roomsMarkdown(root: string): string {
  const graph = roomGraph(root);
  const floor = floors(graph);
  const rooms = mappedRooms(root);
  const missing = withoutSentence(rooms);
  if (missing.length)
    throw new Error(`no ROOMS entry for ${missing.join(', ')}: say in matrix/rooms.ts what each owns, in a sentence`);
  const key = (r: string) => r.replace(/\/$/, '');
  const at = (r: string) => (graph.has(key(r)) ? floor.get(key(r))! : Infinity);
  const rows = rooms
    .sort((a, b) => at(a) - at(b) || a.localeCompare(b))
    .map((r) => {
      const imports = [...(graph.get(key(r))?.keys() ?? [])].sort();
      const shown = imports.map((to) => `\`${to}${to.endsWith('.ts') ? '' : '/'}\``).join(', ');
      return `| ${Number.isFinite(at(r)) ? at(r) : '—'} | \`${r}\` | ${ROOMS[r]} | ${shown || '—'} |`;
    });
  return ['| floor | room | what it owns | imports |', '|---|---|---|---|', ...rows].join('\n');
}
