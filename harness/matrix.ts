import fs from 'node:fs';
import path from 'node:path';
import type { Expectation as CellExpectation, MatrixCell, Observation } from '../report/matrix-cell.ts';
import type { UncontendedLatency } from '../report/matrix-page.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { HarnessError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { ORACLE, ORACLE_COLUMNS, observed, type OracleColumn } from './oracle.ts';
import { resolveConfig, type Config } from './options.ts';
import { runTimestamp } from './results-store.ts';
import { runTest } from './run.ts';
import type { Shutdown } from './shutdown.ts';

/** The argv of one cell's run: the user's run-shaping options pass through, lock/faults/fencing are the cell's. */
function cellArgv(config: Readonly<Config>, lock: string, col: OracleColumn): string[] {
  return [
    `--lock=${lock}`,
    `--nemesis=${col.faults.join(',') || 'none'}`,
    ...(col.fencing ? ['--fencing'] : []),
    `--time-limit=${config.timeLimitS}`,
    `--concurrency=${config.concurrency}`,
    `--ttl=${config.ttlMs}`,
    `--think=${config.thinkMs}`,
    `--nemesis-interval=${config.nemesisIntervalMs}`,
    `--seed=${config.seed}`,
    `--results=${config.resultsDir}`,
  ];
}

/**
 * `--lock=all`: every built-in strategy under each fault of the oracle (and the fenced variant where a token
 * exists), then `matrix.html`. Exit 0 iff every cell matched the oracle. Cells the oracle marks n/a are not
 * run; cells it marks "refuse" are checked against the CLI's own refusal, without starting anything.
 */
const consoleLog = (line: string) => console.error(line);

export async function runMatrix(config: Readonly<Config>, shutdown: Shutdown, log: (line: string) => void = consoleLog): Promise<number> {
  const plan = BUILTIN_LOCKS.flatMap((lock) => ORACLE_COLUMNS.filter((col) => ORACLE[lock][col.id] !== 'n/a').map((col) => ({ lock, col, expected: ORACLE[lock][col.id] })));
  const cells: MatrixCell[] = [];
  const quiet = () => {};
  for (const [i, { lock, col, expected }] of plan.entries()) {
    const argv = cellArgv(config, lock, col);
    const base = { lock, fault: col.faults.join(',') || 'none', fencing: col.fencing, expected: expected as CellExpectation, column: col.title };
    let cell: MatrixCell;
    try {
      const out = await runTest(resolveConfig(argv), shutdown, quiet);
      const r = out.results;
      const obs = observed({ exitCode: out.exitCode, lostUpdates: r.lostUpdates, valid: r.valid });
      // A fenced "safe" only counts if the fault demonstrably hit: some stale write must have been refused.
      const fenceProven = !col.fencing || expected !== 'safe' || r.staleWritesRejected > 0;
      cell = {
        ...base,
        runDir: out.runDir,
        observed: obs as Observation,
        matched: obs === expected && fenceProven,
        lostUpdates: r.lostUpdates,
        staleWritesRejected: r.staleWritesRejected,
        acquireP50: r.latency.acquire.p50,
        acquireP99: r.latency.acquire.p99,
        note: fenceProven ? undefined : 'no stale write was refused: the pause never hit a holder, so the fence was not exercised',
      };
    } catch (err) {
      const refused = err instanceof HarnessError && err.exitCode === EXIT.badArguments;
      cell = {
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
    cells.push(cell);
    log(`[${i + 1}/${plan.length}] ${lock} × ${col.title}: ${cell.observed} (expected ${expected}) ${cell.matched ? '✓' : '✗'}${cell.note && !cell.matched ? ` — ${cell.note.split('\n')[0]}` : ''}`);
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
