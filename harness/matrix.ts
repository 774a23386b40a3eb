import fs from 'node:fs';
import path from 'node:path';
import type { Expectation as CellExpectation, MatrixCell, Observation } from '../report/matrix-cell.ts';
import type { UncontendedLatency } from '../report/matrix-page.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { HarnessError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { fenceUntested, inconclusive, MAX_CELL_RUNS, ORACLE, ORACLE_COLUMNS, observed, type OracleColumn } from './oracle.ts';
import { resolveConfig, type Config } from './options.ts';
import { runTimestamp } from './results-store.ts';
import { runTest } from './run.ts';
import type { Shutdown } from './shutdown.ts';

/** The argv of one cell's run: the user's run-shaping options pass through, lock/faults/fencing are the cell's. */
function cellArgv(config: Readonly<Config>, lock: string, col: OracleColumn, seed: number): string[] {
  return [
    `--lock=${lock}`,
    `--nemesis=${col.faults.join(',') || 'none'}`,
    ...(col.fencing ? ['--fencing'] : []),
    `--time-limit=${config.timeLimitS}`,
    `--concurrency=${config.concurrency}`,
    `--ttl=${config.ttlMs}`,
    `--think=${config.thinkMs}`,
    `--nemesis-interval=${Math.min(config.nemesisIntervalMs, col.maxIntervalMs ?? Infinity)}`,
    `--seed=${seed}`,
    `--results=${config.resultsDir}`,
  ];
}

const FENCE_NOT_EXERCISED = 'no stale write was refused: the pause never hit a holder, so the fence was not exercised';

/** One run of one cell, in the matrix's terms. */
async function runCell(argv: string[], base: Pick<MatrixCell, 'lock' | 'fault' | 'fencing' | 'expected' | 'column'>, shutdown: Shutdown, log: (line: string) => void): Promise<MatrixCell> {
  const expected = base.expected;
  try {
    const out = await runTest(resolveConfig(argv), shutdown, log);
    const r = out.results;
    const obs = observed({ exitCode: out.exitCode, lostUpdates: r.lostUpdates, valid: r.valid });
    // A fenced "safe" only counts if the fault demonstrably hit: some stale write must have been refused.
    const untested = fenceUntested(base.fencing, expected, obs, r.staleWritesRejected);
    return {
      ...base,
      runDir: out.runDir,
      observed: obs as Observation,
      matched: obs === expected && !untested,
      lostUpdates: r.lostUpdates,
      staleWritesRejected: r.staleWritesRejected,
      acquireP50: r.latency.acquire.p50,
      acquireP99: r.latency.acquire.p99,
      note: untested ? FENCE_NOT_EXERCISED : undefined,
    };
  } catch (err) {
    const refused = err instanceof HarnessError && err.exitCode === EXIT.badArguments;
    return {
      ...base,
      runDir: '',
      observed: refused ? 'refuse' : 'unknown',
      matched: refused && expected === 'refuse',
      lostUpdates: 0,
      staleWritesRejected: 0,
      acquireP50: 0,
      acquireP99: 0,
      note: (err as Error).message,
    };
  }
}

const consoleLog = (line: string) => console.error(line);

/**
 * `--lock=all`: every built-in strategy under each fault of the oracle (and the fenced variant where a token
 * exists), then `matrix.html`. Exit 0 iff every cell matched the oracle. Cells the oracle marks n/a are not
 * run; cells it marks "refuse" are checked against the CLI's own refusal, without starting anything.
 */
export async function runMatrix(config: Readonly<Config>, shutdown: Shutdown, log: (line: string) => void = consoleLog): Promise<number> {
  const shortest = shortestUsefulRunS(
    ORACLE_COLUMNS.flatMap((c) => c.faults),
    { intervalMs: config.nemesisIntervalMs, pauseMs: config.pauseMs },
  );
  if (config.timeLimitS < shortest) {
    throw new HarnessError(
      'bad-arguments',
      `--lock=all --time-limit=${config.timeLimitS}: too short for the "holder paused" and fenced columns. A holder is paused ${config.pauseMs} ms, after the first fault at ${firstDelayFor(config.nemesisIntervalMs)} ms, and only writes again after that: every such cell would show nothing, three times over.`,
      { hint: `npm run jepsen -- --lock=all --time-limit=${shortest} (or more; 10 is a good start)` },
    );
  }
  const plan = BUILTIN_LOCKS.flatMap((lock) => ORACLE_COLUMNS.filter((col) => ORACLE[lock][col.id] !== 'n/a').map((col) => ({ lock, col, expected: ORACLE[lock][col.id] })));
  const cells: MatrixCell[] = [];
  const quiet = () => {};
  for (const [i, { lock, col, expected }] of plan.entries()) {
    const base = { lock, fault: col.faults.join(',') || 'none', fencing: col.fencing, expected: expected as CellExpectation, column: col.title };
    let cell!: MatrixCell;
    const runs: string[] = [];
    for (let attempt = 0; attempt < MAX_CELL_RUNS; attempt++) {
      const seed = (config.seed + attempt) % 2 ** 31;
      cell = await runCell(cellArgv(config, lock, col, seed), base, shutdown, quiet);
      runs.push(`seed ${seed} ${cell.observed}${fenceUntested(col.fencing, expected, cell.observed, cell.staleWritesRejected) ? ' (fence never exercised)' : ''}`);
      if (!inconclusive(expected, cell.observed, col.fencing, cell.staleWritesRejected)) break;
      if (attempt + 1 < MAX_CELL_RUNS) log(`[${i + 1}/${plan.length}] ${lock} × ${col.title}: ${runs.at(-1)}, not conclusive for "${expected}" — running it again`);
    }
    // A cell that took more than one run says so, with what each run showed; it links to the last one.
    // (The last run's own note is left out when it only repeats what its entry says: the fence was not exercised.)
    if (runs.length > 1) cell = { ...cell, note: `${runs.length} runs: ${runs.join(', ')}${cell.note && cell.note !== FENCE_NOT_EXERCISED ? `; ${cell.note}` : ''}` };
    cells.push(cell);
    log(`[${i + 1}/${plan.length}] ${lock} × ${col.title}: ${cell.observed} (expected ${expected}) ${cell.matched ? '✓' : '✗'}${cell.note && (!cell.matched || runs.length > 1) ? ` — ${cell.note.split('\n')[0]}` : ''}`);
  }
  // What each lock costs by itself: one client, no fault (the cells' latency includes waiting for other holders).
  const uncontended: Record<string, UncontendedLatency> = {};
  for (const lock of BUILTIN_LOCKS) {
    try {
      const out = await runTest(resolveConfig([`--lock=${lock}`, '--nemesis=none', '--concurrency=1', `--time-limit=${Math.min(config.timeLimitS, 5)}`, `--seed=${config.seed}`, `--results=${config.resultsDir}`]), shutdown, quiet);
      const l = out.results.latency;
      uncontended[lock] = { acquireP50: l.acquire.p50, acquireP99: l.acquire.p99, writeP50: l.write.p50, writeP99: l.write.p99, runDir: out.runDir };
      log(`latency ${lock}, one client: acquire p50 ${l.acquire.p50.toFixed(2)} ms, p99 ${l.acquire.p99.toFixed(2)} ms`);
    } catch (err) {
      log(`latency ${lock}: could not measure (${(err as Error).message.split('\n')[0]})`);
    }
  }

  const { writeMatrix } = await import('../report/matrix-page.ts');
  // Not a run (no test.json, not `latest`): a page over the cell runs, beside them.
  const dir = path.join(config.resultsDir, 'matrix', runTimestamp());
  fs.mkdirSync(dir, { recursive: true });
  const file = writeMatrix(dir, cells, { command: `npm run jepsen -- --lock=all --time-limit=${config.timeLimitS} --seed=${config.seed}`, uncontended });
  const matched = cells.filter((c) => c.matched).length;
  // Like a run's summary: the progress on stderr, the outcome on stdout.
  (log === consoleLog ? (text: string) => console.log(text) : log)(`\n  ${matched}/${cells.length} cells match the oracle\n  matrix: ${path.relative(process.cwd(), file) || file}\n`);
  return matched === cells.length ? EXIT.valid : EXIT.invalid;
}
