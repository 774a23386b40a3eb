import { cellLiveness, livenessMatches, livenessSeen, runLiveness } from './cell-liveness.ts';
import { cellPromise, runPromise } from './cell-promise.ts';
import { promiseExpectation, promiseMatches, promiseNote } from './promise-expectation.ts';
import { fmtSpan } from '../checkers/liveness.ts';
import { rerunLine } from '../store/rerun-line.ts';
import fs from 'node:fs';
import path from 'node:path';
import { verdictWord } from '../checkers/verdict.ts';
import { DEFAULT_MIN_WRITES } from '../checkers/check-run.ts';
import type { CellRun, MatrixCell } from './matrix-cell.ts';
import type { UncontendedLatency } from './matrix-page.ts';
import { tally, tallyLine } from './matrix-tally.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { cellObservation, matches, needsAnotherRun, judgeRun, starvation, unknownWhy } from './cell-outcome.ts';
import { cellConfig, type CellShape } from './cell-config.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { faultHits } from './cell-hits.ts';
import { shownPath } from '../common/shown-path.ts';
import { matrixColumns, type MatrixColumn, type MatrixTables } from './matrix-columns.ts';
import type { LivenessExpectation, MeasuredExpectation, OracleCell } from '../locks/oracle-cell.ts';
import { MAX_RERUNS } from './oracle.ts';
import type { Config } from '../harness/run-argv.ts';
import { runTimestamp } from '../store/results-store.ts';
import { readTest } from '../store/run-dir.ts';
import { runTest, type RunOutcome } from '../harness/run.ts';
import { Shutdown } from '../common/shutdown.ts';
import { deriveSeed } from '../common/random.ts';

/** Runs one test to its verdict; the matrix takes it as a parameter so its logic is testable without servers. */
export type RunOne = (config: Readonly<Config>) => Promise<RunOutcome>;

/**
 * runTest with a teardown of its own: when a cell's harness throws, its servers, clients and faults are stopped
 * at once (the matrix's Shutdown only runs once, at exit), and the matrix goes on with the next cell. A Ctrl-C
 * meanwhile reaches the running cell's teardown through the matrix's Shutdown.
 */
export function isolatedRunner(shutdown: Shutdown, log: (line: string) => void, run: typeof runTest = runTest): RunOne {
  return async (config) => {
    const own = new Shutdown();
    const relay = shutdown.add(`stop the --lock=${config.lock} run`, () => own.runAll('signal'));
    try {
      return await run(config, own, log);
    } catch (err) {
      await own.runAll('error');
      throw err;
    } finally {
      relay.cancel();
    }
  };
}

function describeRun(r: CellRun): string {
  const hits = r.faultHits !== undefined ? `, hit ${r.faultHits}×` : '';
  return `seed ${r.seed} ${r.verdict} ${r.seen}${r.lostUpdates ? ` (${r.lostUpdates} lost)` : ''}${hits}${r.conclusive ? '' : ` — inconclusive: ${r.why}`}`;
}

/** A cell decided by construction: not run. A refusal is still checked, against the CLI's own option validation. */
type CellBase = Pick<MatrixCell, 'lock' | 'fault' | 'fencing' | 'column'> &
  Partial<Pick<MatrixCell, 'table' | 'columnId'>>;

/** What a cell's runs set, whichever table it is in (or a nightly user's own cell): everything but lock and seed. */
export type CellColumn = Omit<CellShape, 'strategy' | 'seed' | 'concurrency' | 'timeLimitS'>;

/** What a column's runs set, for one lock and seed. */
export function shapeOf(col: CellColumn, strategy: ResolvedStrategy, seed: number): CellShape {
  const { table: _t, id: _i, title: _n, oracle: _o, ...shape } = col as Partial<MatrixColumn> & CellColumn;
  return { ...shape, strategy, seed };
}

export function constructionCell(
  config: Readonly<Config>,
  base: CellBase,
  shape: CellShape,
  o: Extract<OracleCell, { decided: 'construction' }>,
): MatrixCell {
  const cell: MatrixCell = {
    ...base,
    decided: 'construction',
    expected: o.expect,
    observed: 'not run',
    matched: true,
    runDir: '',
    lostUpdates: 0,
    staleWritesRejected: 0,
    acquireP50: 0,
    acquireP99: 0,
    note: o.reason,
  };
  if (o.expect !== 'refuse') return cell;
  try {
    cellConfig(config, shape);
    return {
      ...cell,
      observed: 'accepted',
      matched: false,
      note: `the CLI accepted this combination; the oracle says: ${o.reason}`,
    };
  } catch (err) {
    if (!(err instanceof HarnessError) || err.exitCode !== EXIT.badArguments) throw err;
    return { ...cell, observed: 'refuse', note: `refused: ${err.message}` };
  }
}

/**
 * A measured cell: `config.runs` runs, each inconclusive one replaced by another (next seed), up to MAX_RERUNS more.
 * `col` is a column of either table, or any fault and fencing a user's expectation names (nightly's own cells).
 * `liveness`, the oracle cell's liveness expectation when it has one: the cell matches only when that matches too.
 */
export async function measuredCell(
  config: Readonly<Config>,
  base: CellBase,
  strategy: ResolvedStrategy,
  col: CellColumn,
  expect: MeasuredExpectation,
  run: RunOne,
  progress: (line: string) => void,
  liveness?: LivenessExpectation,
): Promise<MatrixCell> {
  const runs: CellRun[] = [];
  const outcomes: (RunOutcome | null)[] = [];
  while (needsAnotherRun(runs, config.runs, MAX_RERUNS)) {
    const seed = deriveSeed(config.seed, { purpose: 'cell-run', attempt: runs.length });
    try {
      const cell = cellConfig(config, { ...shapeOf(col, strategy, seed), fullRuns: liveness !== undefined });
      const out = await run(cell);
      runs.push(cellRunOf(out, seed, col, cell.concurrency));
      outcomes.push(out);
    } catch (err) {
      runs.push(failedRun(seed, err as Error));
      outcomes.push(null);
    }
    progress(`run ${runs.length}: ${describeRun(runs.at(-1)!)}`);
  }
  const observed = cellObservation(runs, config.runs);
  // The cell links to the run that decided it (the first conclusive one showing what the cell shows), else the last.
  const decisive = runs.findIndex((r) => r.conclusive && r.seen === observed);
  const at = decisive === -1 ? runs.length - 1 : decisive;
  const shown = outcomes[at];
  const inconclusive = runs.filter((r) => !r.conclusive).length;
  const live = cellLiveness(runs);
  const promise = cellPromise(runs);
  const livenessOk = livenessMatches(
    liveness,
    live,
    runs.filter((r) => r.conclusive).map((r) => r.liveness),
  );
  const promiseExpect = promiseExpectation(strategy, col.faults);
  const note = [
    cellNote(observed, runs, inconclusive),
    liveness ? livenessNote(liveness, live, livenessOk) : undefined,
    promiseNote(promiseExpect, promise),
  ]
    .filter(Boolean)
    .join('; ');
  return {
    ...base,
    decided: 'measured',
    expected: expect,
    ...(liveness ? { expectedLiveness: liveness.expect } : {}),
    observed,
    expectedPromise: promiseExpect.expect,
    matched: matches(expect, observed) && livenessOk && promiseMatches(promiseExpect, promise),
    runDir: runs[at].runDir,
    ...lockBuildOf(runs[at].runDir),
    lostUpdates: runs[at].lostUpdates,
    staleWritesRejected: runs[at].staleWritesRejected,
    acquireP50: shown?.results.latency.acquire.p50 ?? 0,
    acquireP99: shown?.results.latency.acquire.p99 ?? 0,
    ...(live ? { liveness: live } : {}),
    ...(promise ? { promise } : {}),
    runs,
    ...(note ? { note } : {}),
  };
}

/** Which build of a lock in another language the run ran (its test record's fingerprint), when it is one. */
function lockBuildOf(runDir: string): { lockBuild?: string } {
  if (!runDir) return {};
  const fingerprint = readTest(runDir).foreignLock?.fingerprint;
  return fingerprint ? { lockBuild: fingerprint } : {};
}

/** What a cell's liveness says against its oracle cell, in words: a livelock it may show, or why it contradicts. */
function livenessNote(
  expect: LivenessExpectation,
  l: ReturnType<typeof cellLiveness>,
  ok: boolean,
): string | undefined {
  const seen = livenessSeen(l);
  if (expect.expect === 'may-livelock')
    return seen === 'livelock'
      ? `livelocked, as the oracle says it may: longest stall ${fmtSpan(l!.longestStallMs)} (${expect.reason})`
      : undefined;
  if (expect.expect === 'stalls')
    return ok
      ? `stalled, as the oracle expects: longest stall ${fmtSpan(l!.longestStallMs)} (${expect.reason})`
      : seen === undefined
        ? 'expected it to stall, but no run measured liveness'
        : `expected every run to stall (${expect.reason}), but a run recovered without one`;
  if (ok) return undefined;
  return seen === undefined
    ? 'expected it to recover, but no run measured liveness'
    : `expected it to recover (${expect.reason}), but a run stalled ${fmtSpan(l!.longestStallMs)} past the TTL`;
}

/** One run of a cell as the cell keeps it: its verdict, counts, the fault's hits, liveness and how it reads. */
function cellRunOf(out: RunOutcome, seed: number, col: CellColumn, concurrency: number): CellRun {
  const r = out.results;
  const fault = col.faults[0] ?? null;
  const hits = fault ? faultHits(r, fault) : undefined;
  const live = runLiveness(r);
  const promise = runPromise(r);
  const failing = Object.entries(r.checkers)
    .filter(([, c]) => c.valid === false)
    .map(([name]) => name);
  const reading = judgeRun({
    valid: r.valid,
    lostUpdates: r.lostUpdates,
    staleWritesRejected: r.staleWritesRejected,
    fencing: col.fencing,
    fault,
    faultHits: hits,
    failing,
    unknownWhy: unknownWhy(r, concurrency),
    starvation: starvation(r, concurrency),
  });
  return {
    seed,
    runDir: out.runDir,
    verdict: verdictWord(r.valid),
    lostUpdates: r.lostUpdates,
    staleWritesRejected: r.staleWritesRejected,
    ...(hits !== undefined ? { faultHits: hits } : {}),
    ...(live ? { liveness: live } : {}),
    ...(promise ? { promise } : {}),
    ...(out.stoppedEarlyAtS !== undefined ? { stoppedAtS: out.stoppedEarlyAtS } : {}),
    ...reading,
  };
}

/** A run the harness itself failed (it threw): inconclusive, with the first line of why. */
function failedRun(seed: number, err: Error): CellRun {
  return {
    seed,
    runDir: '',
    verdict: 'FAILED',
    lostUpdates: 0,
    staleWritesRejected: 0,
    seen: 'failed',
    conclusive: false,
    why: err.message.split('\n')[0],
  };
}

/** What the cell's page says beside its observation: why it failed or was undecided, or how many were replaced. */
function cellNote(
  observed: MatrixCell['observed'],
  runs: readonly CellRun[],
  inconclusive: number,
): string | undefined {
  if (observed === 'failed') return `the harness failed: ${runs.at(-1)!.why}`;
  if (observed === 'starved') return `starved in all ${runs.length} runs: ${runs.at(-1)!.why}`;
  if (observed === 'unknown')
    return `inconclusive after ${runs.length} runs: ${[...new Set(runs.map((r) => r.why).filter(Boolean))].join('; ')}`;
  return inconclusive ? `${inconclusive} of ${runs.length} runs inconclusive, replaced` : undefined;
}

const consoleLog = (line: string) => console.error(line);

/** The fault table first, then the failure modes and remedies; within a table, lock by lock. */
const tableRank = (col: MatrixColumn) => (col.table === 'faults' ? 0 : 1);

/** The matrix's --time-limit must leave a paused holder time to write again, or every such cell shows nothing. */
export function checkMatrixTimeLimit(
  config: Readonly<Config>,
  columns: readonly CellColumn[] = matrixColumns(config.matrix),
): void {
  const shortest = shortestUsefulRunS(
    columns.flatMap((c) => c.faults),
    { intervalMs: config.nemesisIntervalMs, pauseMs: config.pauseMs },
  );
  if (config.timeLimitS < shortest) {
    throw new HarnessError(
      'bad-arguments',
      `--lock=all --time-limit=${config.timeLimitS}: too short for the "holder paused" and fenced columns. A holder is paused ${config.pauseMs} ms, after the first fault at ${firstDelayFor(config.nemesisIntervalMs)} ms, and only writes again after that: every such cell would show nothing, ${1 + MAX_RERUNS} times over.`,
      { hint: `npm run jepsen -- --lock=all --time-limit=${shortest} (or more; 10 is a good start)` },
    );
  }
}

/**
 * A measured cell is only evidence when VALID was earned: `--min-writes` below its default, or a single client
 * (the two-writer rule needs two), would make every "safe" cell trivial. The latency runs' one client is the
 * matrix's own choice, not the user's, and is not refused.
 */
export function checkMatrixEvidence(config: Readonly<Config>, how = '--lock=all'): void {
  if (config.minWrites < DEFAULT_MIN_WRITES) {
    throw new HarnessError(
      'bad-arguments',
      `${how} --min-writes=${config.minWrites}: below the default ${DEFAULT_MIN_WRITES}, a measured cell's "safe" would need next to no committed writes and prove nothing.`,
      { hint: `drop --min-writes, or give ${DEFAULT_MIN_WRITES} or more` },
    );
  }
  if (config.concurrency < 2) {
    throw new HarnessError(
      'bad-arguments',
      `${how} --concurrency=${config.concurrency}: a measured cell needs at least 2 clients — with one, no client ever competes for the lock and every "safe" cell is trivial.`,
      { hint: 'drop --concurrency (default 5), or give 2 or more' },
    );
  }
}

/** Every built-in strategy, resolved once (the registry's modules, loaded in parallel). */
export async function builtinStrategies(): Promise<Record<BuiltinLock, ResolvedStrategy>> {
  return Object.fromEntries(
    await Promise.all(BUILTIN_LOCKS.map(async (lock) => [lock, await loadStrategy(lock)] as const)),
  ) as Record<BuiltinLock, ResolvedStrategy>;
}

/** The column as one lock's cell runs it: with the oracle cell's own --time-limit floor, when it has one. */
function withCellFloor(col: MatrixColumn, o: OracleCell): MatrixColumn {
  if (o.decided !== 'measured' || o.minTimeLimitS === undefined) return col;
  return { ...col, minTimeLimitS: Math.max(col.minTimeLimitS ?? 0, o.minTimeLimitS) };
}

/**
 * Every cell of the chosen tables, in their one stable order: the fault table first, then the failure modes and
 * remedies; within a table, lock by lock. (The nightly job plans the fault table: `matrixPlan('faults')`.)
 */
export function matrixPlan(
  tables: MatrixTables = 'all',
): { lock: BuiltinLock; col: MatrixColumn; oracle: OracleCell }[] {
  return matrixColumns(tables)
    .flatMap((col) =>
      BUILTIN_LOCKS.map((lock) => ({ lock, col: withCellFloor(col, col.oracle(lock)), oracle: col.oracle(lock) })),
    )
    .sort(
      (a, b) => tableRank(a.col) - tableRank(b.col) || BUILTIN_LOCKS.indexOf(a.lock) - BUILTIN_LOCKS.indexOf(b.lock),
    );
}

/** What each lock costs by itself: one client, no fault (the cells' latency includes waiting for other holders). */
async function uncontendedLatencies(
  config: Readonly<Config>,
  strategies: Awaited<ReturnType<typeof builtinStrategies>>,
  runOne: RunOne,
  log: (line: string) => void,
): Promise<Record<string, UncontendedLatency>> {
  const uncontended: Record<string, UncontendedLatency> = {};
  for (const lock of BUILTIN_LOCKS) {
    try {
      const out = await runOne(
        cellConfig(config, {
          strategy: strategies[lock],
          faults: [],
          fencing: false,
          seed: config.seed,
          concurrency: 1,
          timeLimitS: Math.min(config.timeLimitS, 5),
        }),
      );
      const l = out.results.latency;
      uncontended[lock] = {
        acquireP50: l.acquire.p50,
        acquireP99: l.acquire.p99,
        writeP50: l.write.p50,
        writeP99: l.write.p99,
        runDir: out.runDir,
      };
      log(
        `latency ${lock}, one client: acquire p50 ${l.acquire.p50.toFixed(2)} ms, p99 ${l.acquire.p99.toFixed(2)} ms`,
      );
    } catch (err) {
      log(`latency ${lock}: could not measure (${(err as Error).message.split('\n')[0]})`);
    }
  }
  return uncontended;
}

/**
 * `--lock=all`: every built-in strategy under each column of the chosen tables (`--matrix`), then `matrix.html`.
 * Measured cells are run `--runs` times each (inconclusive runs replaced, whichever way the oracle leans); cells
 * decided by construction are not run and are counted apart. Exit 0 iff every measured cell matched the oracle and
 * the CLI refused every combination the oracle says it must.
 */
export async function runMatrix(
  config: Readonly<Config>,
  shutdown: Shutdown,
  log: (line: string) => void = consoleLog,
  run?: RunOne,
): Promise<number> {
  const runOne = run ?? isolatedRunner(shutdown, () => {});
  checkMatrixTimeLimit(config);
  checkMatrixEvidence(config);
  const plan = matrixPlan(config.matrix);
  // Each built-in resolved once: what it can do (a token, a lease to renew) decides its cells' options.
  const strategies = await builtinStrategies();
  const measuredTotal = plan.filter((p) => p.oracle.decided === 'measured').length;
  const cells: MatrixCell[] = [];
  let measuredDone = 0;
  for (const { lock, col, oracle } of plan) {
    const base: CellBase = {
      lock,
      fault: col.faults.join(',') || 'none',
      fencing: col.fencing,
      column: col.title,
      table: col.table,
      columnId: col.id,
    };
    if (oracle.decided === 'construction') {
      cells.push(constructionCell(config, base, shapeOf(col, strategies[lock], config.seed), oracle));
      continue;
    }
    const label = `[${++measuredDone}/${measuredTotal}] ${lock} × ${col.title}`;
    const cell = await measuredCell(
      config,
      base,
      strategies[lock],
      col,
      oracle.expect,
      runOne,
      (line) => log(`${label}: ${line}`),
      oracle.liveness,
    );
    cells.push(cell);
    log(
      `${label}: ${cell.observed} (expected ${cell.expected}${cell.expectedLiveness ? `, ${cell.expectedLiveness}` : ''}) ${cell.matched ? '✓' : '✗'}${cell.note ? ` — ${cell.note}` : ''}`,
    );
  }
  for (const c of cells.filter((c) => c.decided === 'construction')) {
    log(
      `by construction: ${c.lock} × ${c.column}: ${c.expected}${c.expected === 'refuse' ? ` ${c.matched ? '✓' : '✗'}` : ''} — ${c.note}`,
    );
  }

  // Only the fault table's "choosing a lock" rows show it.
  const uncontended = config.matrix === 'remedies' ? {} : await uncontendedLatencies(config, strategies, runOne, log);

  const { writeMatrix } = await import('./matrix-page.ts');
  // Not a run (no test record, not `latest`): a page over the cell runs, beside them.
  const dir = path.join(config.resultsDir, 'matrix', runTimestamp());
  fs.mkdirSync(dir, { recursive: true });
  // The command that runs this matrix again: the one renderer of a replay line (its seed, shell-quoted).
  const command = rerunLine({ argv: config.argv, lock: 'unknown', seed: config.seed });
  const file = writeMatrix(dir, cells, { command, uncontended, runsPerCell: config.runs });
  const t = tally(cells);
  // Like a run's summary: the progress on stderr, the outcome on stdout.
  (log === consoleLog ? (text: string) => console.log(text) : log)(
    `\n  ${tallyLine(t)}\n  matrix: ${shownPath(file)}\n`,
  );
  return t.allMatched ? EXIT.valid : EXIT.invalid;
}
