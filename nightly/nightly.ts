import { CellProgress } from '../matrix/cell-eta.ts';
import { nightServers } from './night-servers.ts';
import fs from 'node:fs';
import path from 'node:path';
import { tally, tallyLine } from '../matrix/matrix-tally.ts';
import { cellConfig } from '../matrix/cell-config.ts';
import { CLI } from '../common/cli-name.ts';
import { HarnessError } from '../common/errors.ts';
import { shownPath } from '../common/shown-path.ts';
import { expectationsPath, loadExpectations, type UserExpectation } from './expectations.ts';
import { checkMatrixEvidence, checkMatrixTimeLimit } from '../matrix/matrix.ts';
import { constructionCell, isolatedRunner, measuredCell, shapeOf, type RunOne } from '../matrix/cell-decision.ts';
import { matrixColumns } from '../matrix/matrix-columns.ts';
import { mergeShards } from './nightly-merge.ts';
import { LIBRARY_TURNS, libraryRowsOf, libraryTurnOf } from './nightly-library-sample.ts';
import { nightlyPlan, shardSlice, type PlannedCell } from './nightly-plan.ts';
import {
  nightExit,
  readNightlyFiles,
  shardSuffix,
  writeNightlyJson,
  type NightlyCell,
  type NightlyResult,
} from './nightly-result.ts';
import { resolvedRun, runOf, type Config, type RunOptionValues, type RunSpelling } from '../harness/run-argv.ts';
import { optionValuesOf, spelledOf, type RunOverrides } from '../harness/run-overrides.ts';
import { runDefaults } from '../harness/typed-run.ts';
import { type NightlyConfig } from './nightly-config.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { knownBugCells, knownBugsDir, readKnownBugs } from './known-bugs.ts';
import { lostReplyCells } from './lost-reply-cells.ts';
import { removeUnpacked } from '../repro/replay-input.ts';

/**
 * The CI-sized default: 10 s a run (and --stop-on-lost-update) keeps both tables to 12 min on 2 cores two cells at a
 * time (the default --parallel there), ~25 min one at a time (docs/performance.md).
 */
export const NIGHTLY_TIME_LIMIT_S = 10;

/** Options that are the nightly job's own, or differ per machine or night: not part of a cell's settings. */
const NIGHTLY_OWN = new Set([
  'shard',
  'baseline',
  'expectations',
  'known-bugs',
  'results',
  'seed',
  'cells',
  'parallel',
  'emit',
  'image',
  'shards',
  'partial',
]);

const consoleLog = (line: string) => console.error(line);

/**
 * The options every cell runs with: what the user gave (minus the job's own), as they spelled them, after the
 * CI-sized defaults — the time limit, and each run ending at its first lost update (a cell that needs no more; its
 * checkers still decide) — unless the user gave them.
 */
export function nightlySettings(config: Readonly<NightlyConfig>): NightSettings {
  const given = config.spelled.filter((s) => !NIGHTLY_OWN.has(s.name)) as RunSpelling[];
  const has = (name: string) => given.some((s) => s.name === name);
  const defaults: RunOverrides = {
    ...(has('time-limit') ? {} : { timeLimitS: NIGHTLY_TIME_LIMIT_S }),
    ...(has('stop-on-lost-update') ? {} : { stopOnLostUpdate: true }),
  };
  const spelled = [...spelledOf(defaults), ...given];
  return { argv: spelled.flatMap((s) => s.argv), spelled, values: optionValuesOf(defaults) };
}

/** The night's settings: as its cells' argv spell them, and the values of its own defaults among them. */
interface NightSettings {
  argv: string[];
  spelled: readonly RunSpelling[];
  values: Partial<RunOptionValues>;
}

/**
 * `nightly merge <dir>…` or the night itself. `run` replaces the runner of the matrix's cells (a test's fake);
 * `replays` runs the lost-reply cells, which replay scenarios on servers of their own — none by default when `run`
 * is given, so a test's night with a fake runner boots nothing.
 */
export async function nightlyCommand(
  config: Readonly<NightlyConfig>,
  shutdown: Shutdown,
  log: (line: string) => void = consoleLog,
  run?: RunOne,
  replays: typeof lostReplyCells | null = run ? null : lostReplyCells,
): Promise<number> {
  if (config.rest[0] === 'merge') return nightlyMerge(config, log);
  if (config.emit === 'kubernetes') return (await import('./nightly-kubernetes.ts')).emitKubernetes(config);
  if (config.rest.length) {
    throw new HarnessError('bad-arguments', `nightly: unexpected argument "${config.rest[0]}".`, {
      hint: `${CLI} nightly [--baseline=<dir>] [--shard=<i>/<n>], or: ${CLI} nightly merge <dir>…`,
    });
  }
  const started = Date.now();
  const { settings, matrix } = nightMatrix(config);
  const { file, user } = userCells(config);
  // A user's repository tests its own locks: --cells=expectations keeps the file's cells (in its order) and drops
  // the oracle's, numbered afresh so shards and merges see one plan.
  const turn = libraryTurnOf(matrix.seed);
  const plan = nightlyPlan(user, matrix.matrix, turn)
    .filter((p) => config.cells === 'all' || p.from !== 'oracle')
    .map((p, index) => ({ ...p, index }));
  const strategies = await planStrategies(matrix, plan);
  const baseline = config.baseline ? readBaseline(config.baseline) : null;
  // Known bugs are read before anything runs (a damaged one is a 254), and replayed by the first shard only.
  const bugsDir = knownBugsDir(config.knownBugs);
  const bugs = bugsDir && (config.shard?.index ?? 1) === 1 ? await readKnownBugs(bugsDir) : [];
  // What their .tgz unpacked goes however the night ends (each is also removed once replayed).
  const unpacked = shutdown.add('remove the unpacked known bugs', () => bugs.forEach((b) => removeUnpacked(b.input)));

  const runOne = run ?? isolatedRunner(shutdown, () => {});
  const slice = shardSlice(plan, config.shard, matrix.timeLimitS);
  const measuredTotal = slice.filter((p) => p.oracle.decided === 'measured').length;
  log(
    `nightly${config.shard ? ` shard ${config.shard.index}/${config.shard.count}` : ''}: ${measuredTotal} measured cells of ${plan.filter((p) => p.oracle.decided === 'measured').length}, seed ${matrix.seed}, ${settings.join(' ')}${file ? `, expectations ${shownPath(file)}` : ''}${config.cells === 'all' ? `; npm library rows of turn ${turn + 1} of ${LIBRARY_TURNS} (the seed's): ${libraryRowsOf(turn).join(', ')}` : ''}`,
  );
  const cells = await runCells(slice, config.parallel, (p, counter) =>
    nightlyCell(matrix, p, strategies.get(p.lock)!, runOne, counter, log),
  );
  cells.push(
    ...(await knownBugCells(bugs, {
      resultsDir: config.resultsDir,
      seed: matrix.seed,
      firstIndex: plan.length,
      shutdown,
      log,
    })),
  );
  // The rows' lost-reply cells of the night's turn: the oracle's, so not on --cells=expectations; the first shard's.
  if (replays && config.cells === 'all' && (config.shard?.index ?? 1) === 1)
    cells.push(
      ...(await replays(turn, {
        resultsDir: config.resultsDir,
        seed: matrix.seed,
        firstIndex: plan.length + bugs.length,
        shutdown,
        log,
      })),
    );
  await unpacked.run();

  const result: NightlyResult = {
    version: 1,
    seed: matrix.seed,
    shard: config.shard,
    settings,
    command: nightCommandLine(config, settings, matrix.seed),
    startedAt: new Date(started).toISOString(),
    wallMs: Date.now() - started,
    expectationsFile: file ? shownPath(file) : null,
    cells: cells.map((c) => relativeRuns(c, config.resultsDir)),
    servers: nightServers(cells.flatMap((c) => (c.runs ?? []).map((r) => r.runDir))),
  };
  return writeNight(config.resultsDir, result, baseline, log);
}

/** How a cell numbers itself among the night's measured cells, and the progress line it adds to. */
type CellCounter = { total: number; next: () => number; progress: CellProgress };

/**
 * The cells of `slice` run by `parallel` workers that take them in order, each cell keeping its place in the night;
 * `counter` numbers the measured ones as they finish, for the progress lines.
 */
async function runCells(
  slice: readonly PlannedCell[],
  parallel: number,
  runCell: (p: PlannedCell, counter: CellCounter) => Promise<NightlyCell>,
): Promise<NightlyCell[]> {
  const measuredTotal = slice.filter((p) => p.oracle.decided === 'measured').length;
  const cells: NightlyCell[] = new Array<NightlyCell>(slice.length);
  let done = 0;
  let taken = 0;
  const counter: CellCounter = {
    total: measuredTotal,
    next: () => ++done,
    progress: new CellProgress(measuredTotal, parallel),
  };
  const worker = async () => {
    while (taken < slice.length) {
      const i = taken++;
      cells[i] = await runCell(slice[i], counter);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, Math.max(1, slice.length)) }, worker));
  return cells;
}

/** The command that runs this night again: its own options, the cells' settings, its seed and shard. */
function nightCommandLine(config: Readonly<NightlyConfig>, settings: readonly string[], seed: number): string {
  return [
    `${CLI} nightly`,
    ...(config.cells === 'all' ? [] : [`--cells=${config.cells}`]),
    ...(config.parallel > 1 ? [`--parallel=${config.parallel}`] : []),
    ...settings,
    `--seed=${seed}`,
    ...(config.shard ? [`--shard=${config.shard.index}/${config.shard.count}`] : []),
  ].join(' ');
}

/**
 * The night's settings and the matrix's own Config: every cell's argv is derived from it (cell-config.ts), exactly
 * as for --lock=all. Both tables unless --matrix narrows it (cells keyed so they do not collide: nightly-plan.ts).
 */
export function nightMatrix(config: Readonly<NightlyConfig>): { settings: string[]; matrix: Readonly<Config> } {
  const settings = nightlySettings(config);
  const own: RunOverrides = { resultsDir: config.resultsDir, seed: config.seed };
  const values = {
    ...runDefaults(),
    ...config.runOptions,
    ...settings.values,
    lock: 'all',
    ...optionValuesOf(own),
  } as RunOptionValues;
  const spelled = [...spelledOf({ lock: 'all' }), ...settings.spelled, ...spelledOf(own)];
  const matrix = resolvedRun(runOf(values, spelled, () => config.seed));
  checkMatrixTimeLimit(matrix, matrixColumns(matrix.matrix));
  checkMatrixEvidence(matrix, 'nightly');
  return { settings: settings.argv, matrix };
}

/** The user's expectations file and its cells; --cells=expectations without any is a bad argument (254). */
function userCells(config: Readonly<NightlyConfig>): { file: string | null; user: UserExpectation[] } {
  const file = expectationsPath(config.expectations);
  const user = file ? loadExpectations(file) : [];
  if (config.cells === 'expectations' && !user.length)
    throw new HarnessError(
      'bad-arguments',
      `nightly --cells=expectations: ${file ? `${shownPath(file)} names no cell` : 'no expectations file (./fencepost.expectations.json does not exist)'}.`,
      {
        hint: 'write one (`fencepost init` starts it), pass --expectations=<file>, or drop --cells',
      },
    );
  return { file, user };
}

/**
 * Every lock of the night resolved once, built-ins and the users' plugins alike: what it declares (servers, a
 * token, a lease to renew) decides its cells' options. A user's cell the CLI would refuse (--fencing with a lock
 * that has no token) fails now, not after the night.
 */
async function planStrategies(
  matrix: Readonly<Config>,
  plan: readonly PlannedCell[],
): Promise<Map<string, ResolvedStrategy>> {
  const strategies = new Map<string, ResolvedStrategy>();
  for (const lock of new Set(plan.map((p) => p.lock))) strategies.set(lock, await loadStrategy(lock));
  for (const p of plan.filter((p) => p.from !== 'oracle')) {
    try {
      cellConfig(matrix, {
        strategy: strategies.get(p.lock)!,
        faults: p.col.faults,
        fencing: p.fencing,
        seed: matrix.seed,
      });
    } catch (err) {
      if (!(err instanceof HarnessError)) throw err;
      throw new HarnessError('bad-arguments', `${p.from}: ${p.lock} × ${p.column}: ${err.message}`, {
        hint: 'fix or remove that entry of the expectations file',
      });
    }
  }
  return strategies;
}

async function nightlyCell(
  matrix: Readonly<Config>,
  p: PlannedCell,
  strategy: ResolvedStrategy,
  runOne: RunOne,
  count: CellCounter,
  log: (line: string) => void,
): Promise<NightlyCell> {
  const base = {
    lock: p.lock,
    fault: p.fault,
    fencing: p.fencing,
    column: p.column,
    ...(p.table ? { table: p.table, columnId: p.columnId } : {}),
  };
  const own = { index: p.index, from: p.from, ...(p.why ? { why: p.why } : {}) };
  if (p.oracle.decided === 'construction') {
    return {
      ...constructionCell(matrix, base, shapeOf(p.col, strategy, matrix.seed), p.oracle),
      ...own,
    };
  }
  const label = `[${count.next()}/${count.total}] ${p.lock} × ${p.column}`;
  const started = performance.now();
  const cell = await measuredCell(
    matrix,
    base,
    strategy,
    p.col,
    p.oracle.expect,
    runOne,
    (line) => log(`${label}: ${line}`),
    p.oracle.liveness,
    p.oracle.promise,
  );
  const eta = count.progress.finished(performance.now() - started);
  log(
    `${label}: ${cell.observed} (expected ${cell.expected}, ${p.from}) ${cell.matched ? '✓' : '✗'}${cell.note ? ` — ${cell.note}` : ''} · ${eta}`,
  );
  const hits = cell.runs?.map((r) => r.faultHits).filter((h): h is number => h !== undefined) ?? [];
  return {
    ...cell,
    ...own,
    ...(hits.length ? { faultHits: hits.reduce((a, b) => a + b, 0) } : {}),
    wallMs: Math.round(performance.now() - started),
  };
}

/** Run folders relative to the results folder, so the night reads the same from a CI artifact downloaded anywhere. */
function relativeRuns(c: NightlyCell, resultsDir: string): NightlyCell {
  const rel = (d: string) => (d ? path.relative(resultsDir, d) : '');
  return {
    ...c,
    runDir: rel(c.runDir),
    ...(c.runs ? { runs: c.runs.map((r) => ({ ...r, runDir: rel(r.runDir) })) } : {}),
  };
}

function readBaseline(dir: string): { dir: string; result: NightlyResult } {
  const parts = readNightlyFiles(dir);
  return { dir, result: parts.length === 1 && !parts[0].result.shard ? parts[0].result : mergeShards(parts, dir) };
}

/** `nightly merge <dir>…`: the shards of one night → one nightly.json, junit.xml, summary.md (and comparison.html) in --results. */
async function nightlyMerge(config: Readonly<NightlyConfig>, log: (line: string) => void): Promise<number> {
  const dirs = config.rest.slice(1).map((d) => path.resolve(d));
  if (dirs.length === 0)
    throw new HarnessError('bad-arguments', 'nightly merge: give the results folder of every shard.', {
      hint: `${CLI} nightly merge shards/1 shards/2 shards/3 --results=tonight`,
    });
  // --partial: a shard that left nothing (its folder absent or empty) is missing, not a bad argument.
  const left = config.partial ? dirs.filter(holdsNight) : dirs;
  if (left.length === 0)
    throw new HarnessError('bad-arguments', `nightly merge --partial: no shard left a result in ${dirs.join(', ')}.`, {
      hint: "the night ran nothing: read its shards' logs (kubectl logs job/<name>)",
    });
  const parts = left.flatMap((d) => readNightlyFiles(d)).filter((p) => p.result.shard !== null || dirs.length === 1);
  const baseline = config.baseline ? readBaseline(config.baseline) : null;
  const merged = mergeShards(parts, config.resultsDir, config.partial);
  log(`nightly merge: ${parts.length} shard${parts.length === 1 ? '' : 's'} → ${merged.cells.length} cells`);
  if (merged.missingShards)
    log(
      `nightly merge: shard${merged.missingShards.length > 1 ? 's' : ''} ${merged.missingShards.join(', ')} left no result: their measured cells did not run, so the night cannot pass.`,
    );
  return writeNight(config.resultsDir, merged, baseline, log);
}

/** Whether a folder holds a nightly result file (the one test `--partial` makes before reading it). */
function holdsNight(dir: string): boolean {
  return fs.existsSync(dir) && fs.readdirSync(dir).some((f) => /^nightly(\.shard-\d+-of-\d+)?\.json$/.test(f));
}

/** nightly.json, junit.xml, summary.md (also appended to $GITHUB_STEP_SUMMARY) and, given a baseline, comparison.html. */
async function writeNight(
  dir: string,
  result: NightlyResult,
  baseline: { dir: string; result: NightlyResult } | null,
  log: (line: string) => void,
): Promise<number> {
  const { renderJunit } = await import('./nightly-junit.ts');
  const { renderSummary } = await import('./nightly-summary.ts');
  const { writeComparison } = await import('./nightly-comparison.ts');
  fs.mkdirSync(dir, { recursive: true });
  const suffix = shardSuffix(result.shard);
  const shown = shownPath(dir) || '.';
  const written = [writeNightlyJson(dir, result)];
  const junit = path.join(dir, `junit${suffix}.xml`);
  fs.writeFileSync(junit, renderJunit(result, shown));
  const summary = renderSummary(result, shown, baseline?.result);
  const summaryFile = path.join(dir, `summary${suffix}.md`);
  fs.writeFileSync(summaryFile, summary);
  written.push(junit, summaryFile);
  if (baseline) written.push(writeComparison(dir, result, baseline.result, baseline.dir, suffix));
  if (process.env.GITHUB_STEP_SUMMARY) fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${summary}\n`);
  const code = nightExit(result);
  const out = log === consoleLog ? (text: string) => console.log(text) : log;
  out(
    `\n  nightly: exit ${code}; ${nightlyTallyLine(result.cells)}\n${written.map((f) => `  ${shownPath(f)}`).join('\n')}\n`,
  );
  return code;
}

/**
 * The night's closing count, table by table (the fault table, the failure modes and remedies, the locks' margins,
 * then the user's own cells), each as `--lock=all` gives it: "fault table: 22 measured: 22 matched; 13 by construction … · remedy table: …".
 */
export function nightlyTallyLine(cells: readonly NightlyCell[]): string {
  const groups: [string, NightlyCell[]][] = [
    ['fault table', cells.filter((c) => c.table === 'faults')],
    ['remedy table', cells.filter((c) => c.table === 'remedies')],
    ['margins', cells.filter((c) => c.table === 'margins')],
    ['your cells', cells.filter((c) => c.table === undefined && c.from !== 'oracle')],
  ];
  return groups
    .filter(([, g]) => g.length > 0)
    .map(([name, g]) => `${name}: ${tallyLine(tally(g))}`)
    .join(' · ');
}
