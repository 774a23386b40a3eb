/**
 * One cell of the matrix, decided: by construction (not run; a refusal still checked against the CLI), or measured
 * over its runs (reruns while inconclusive), each run in a teardown of its own. matrix.ts plans and runs the cells.
 */
import { cellLiveness, livenessMatches, livenessSeen, runLiveness } from './cell-liveness.ts';
import { cellPromise, runPromise } from './cell-promise.ts';
import { promiseExpectation, promiseMatches, promiseNote, type PromiseExpectation } from './promise-expectation.ts';
import { fmtSpan } from '../checkers/liveness.ts';
import { verdictWord } from '../checkers/verdict.ts';
import type { CellRun, MatrixCell } from './matrix-cell.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { cellObservation, matches, needsAnotherRun, judgeRun, starvation, unknownWhy } from './cell-outcome.ts';
import { cellConfig, type CellShape } from './cell-config.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { faultHits } from './cell-hits.ts';
import { type MatrixColumn } from './matrix-columns.ts';
import type { LivenessExpectation, MeasuredExpectation, OracleCell } from '../locks/oracle-cell.ts';
import { MAX_RERUNS } from './oracle.ts';
import type { Config } from '../harness/run-argv.ts';
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
export type CellBase = Pick<MatrixCell, 'lock' | 'fault' | 'fencing' | 'column'> &
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
  promiseOwn?: PromiseExpectation,
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
  const promiseExpect = promiseExpectation(strategy, col.faults, promiseOwn);
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
