import { CellProgress } from './cell-eta.ts';
import { rerunLine } from '../store/rerun-line.ts';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MIN_WRITES } from '../checkers/check-run.ts';
import type { MatrixCell } from './matrix-cell.ts';
import type { UncontendedLatency } from './matrix-page.ts';
import { tally, tallyLine } from './matrix-tally.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { BUILTIN_LOCKS, type BuiltinLock } from '../workloads/lock-names.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { cellConfig } from './cell-config.ts';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { shownPath } from '../common/shown-path.ts';
import { matrixColumns, type MatrixColumn, type MatrixTables } from './matrix-columns.ts';
import { marginPlan } from './margin-oracle.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import { MAX_RERUNS } from './oracle.ts';
import type { Config } from '../harness/run-argv.ts';
import { runTimestamp } from '../store/results-store.ts';
import { Shutdown } from '../common/shutdown.ts';
import {
  constructionCell,
  isolatedRunner,
  measuredCell,
  shapeOf,
  type CellBase,
  type CellColumn,
  type RunOne,
} from './cell-decision.ts';

const consoleLog = (line: string) => console.error(line);

/** The fault table first, then the failure modes and remedies, then the margins; within a table, lock by lock. */
const tableRank = (col: MatrixColumn) => ['faults', 'remedies', 'margins'].indexOf(col.table);

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

/** The rows a matrix measures, in the registry's order: every built-in lock, or those `--rows` named. */
const matrixRows = (rows: readonly BuiltinLock[] | null): BuiltinLock[] =>
  BUILTIN_LOCKS.filter((lock) => rows === null || rows.includes(lock));

/**
 * Every cell of the chosen tables, in their one stable order: the fault table first, then the failure modes and
 * remedies, then each lock's margins (matrix/margin-oracle.ts); within a table, lock by lock. (The nightly job plans
 * the fault table: `matrixPlan('faults')`.)
 */
export function matrixPlan(
  tables: MatrixTables = 'all',
  rows: readonly BuiltinLock[] | null = null,
): { lock: BuiltinLock; col: MatrixColumn; oracle: OracleCell }[] {
  const locks = matrixRows(rows);
  const margins = tables === 'all' || tables === 'margins' ? marginPlan().filter((m) => locks.includes(m.lock)) : [];
  return [
    ...matrixColumns(tables).flatMap((col) =>
      locks.map((lock) => ({ lock, col: withCellFloor(col, col.oracle(lock)), oracle: col.oracle(lock) })),
    ),
    ...margins.map((m) => ({ ...m, col: withCellFloor(m.col, m.oracle) })),
  ].sort(
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
  for (const lock of matrixRows(config.rows)) {
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
  const plan = matrixPlan(config.matrix, config.rows);
  // Each built-in resolved once: what it can do (a token, a lease to renew) decides its cells' options.
  const strategies = await builtinStrategies();
  const measuredTotal = plan.filter((p) => p.oracle.decided === 'measured').length;
  const cells: MatrixCell[] = [];
  let measuredDone = 0;
  const progress = new CellProgress(measuredTotal);
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
    const started = performance.now();
    const cell = await measuredCell(
      config,
      base,
      strategies[lock],
      col,
      oracle.expect,
      runOne,
      (line) => log(`${label}: ${line}`),
      oracle.liveness,
      oracle.promise,
    );
    cells.push(cell);
    const eta = progress.finished(performance.now() - started);
    log(
      `${label}: ${cell.observed} (expected ${cell.expected}${cell.expectedLiveness ? `, ${cell.expectedLiveness}` : ''}) ${cell.matched ? '✓' : '✗'}${cell.note ? ` — ${cell.note}` : ''} · ${eta}`,
    );
  }
  for (const c of cells.filter((c) => c.decided === 'construction')) {
    log(
      `by construction: ${c.lock} × ${c.column}: ${c.expected}${c.expected === 'refuse' ? ` ${c.matched ? '✓' : '✗'}` : ''} — ${c.note}`,
    );
  }

  // Only the fault table's "choosing a lock" rows show it.
  const uncontended =
    config.matrix === 'remedies' || config.matrix === 'margins'
      ? {}
      : await uncontendedLatencies(config, strategies, runOne, log);

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
