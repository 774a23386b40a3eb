import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import type { MatrixCell } from './matrix-cell.ts';
import { matrixPlan, runMatrix } from './matrix.ts';
import { isolatedRunner, type RunOne } from './cell-decision.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { isRemedyRun, livenessAsExpected, oracleExpectation, scenarioOf } from '../test/support/oracle-expectation.ts';
import type { RemedyScenarioId } from '../locks/oracle-cell.ts';
import type { RunOutcome } from '../harness/run.ts';
import { Shutdown } from '../common/shutdown.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-matrix-run-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** What a fake run shows: the verdict, lost updates, stale writes refused and the fault's hits (undefined = no count). */
interface Shown {
  valid: RunResults['valid'];
  lost?: number;
  stale?: number;
  hits?: number;
  /** Committed writes per client slot (results.json's progress); absent = not recorded. */
  writes?: Record<number, number>;
  unknownReasons?: string[];
  /** results.json's liveness; absent = as the oracle expects (livenessAsExpected). */
  liveness?: { recoveryMs: { median: number; max: number; unrecovered: number }; longestStallMs: number };
  /** The promise checker's counts; absent = results from before it (no `checkers.promise`). */
  broke?: number;
}

function outcome(config: Readonly<Config>, s: Shown): RunOutcome {
  const q = { count: 1, p50: 1, p90: 1, p99: 2, max: 2 };
  const fault = config.nemesis?.[0];
  const results = {
    valid: s.valid,
    lostUpdates: s.lost ?? 0,
    staleWritesRejected: s.stale ?? 0,
    checkers: {
      'lost-updates': { valid: s.valid },
      ...(s.broke !== undefined
        ? {
            promise: {
              valid: s.broke === 0,
              holds: 10,
              unknownHolds: 0,
              counts: { broke: s.broke, outlived: 1, 'own-clock': 0, unknown: 0 },
            },
          }
        : {}),
    },
    latency: { acquire: q, read: q, write: q, release: q },
    ...(fault && s.hits !== undefined
      ? { faultHits: { [fault]: { fired: Math.max(1, s.hits), hit: s.hits, shots: [] } } }
      : {}),
    unknownReasons: s.unknownReasons ?? [],
    ...(s.liveness ? { liveness: s.liveness } : livenessAsExpected(config)),
    ...(s.writes
      ? {
          progress: {
            committedWrites: Object.values(s.writes).reduce((a, b) => a + b, 0),
            writers: Object.keys(s.writes).map(Number),
          },
        }
      : {}),
  } as unknown as RunResults;
  return {
    exitCode: s.valid === true ? 0 : s.valid === false ? 1 : 2,
    runDir: path.join(root, config.lock, String(config.seed)),
    results,
  };
}

/**
 * The table's size, from the oracle data (so a new built-in's row does not change these tests): measured cells,
 * cells decided by construction, and of those the refusals the CLI must confirm.
 */
function tally(tables: 'faults' | 'remedies' | 'all') {
  const plan = matrixPlan(tables);
  const measured = plan.filter((p) => p.oracle.decided === 'measured').length;
  const construction = plan.length - measured;
  const refusals = plan.filter((p) => p.oracle.decided === 'construction' && p.oracle.expect === 'refuse').length;
  return { measured, construction, refusals };
}
const F = tally('faults');
const R = tally('remedies');
const A = tally('all');

const key = (c: Readonly<Config>) => `${c.lock}|${c.nemesis?.join(',') || 'none'}|${c.fencing ? 'fenced' : 'plain'}`;

/** What the oracle expects of a cell, shown by a run whose fault hit (and, fenced, whose fence refused writes). */
function asExpected(c: Readonly<Config>): Shown {
  const e = oracleExpectation(c);
  if (e === 'safe-may-starve') return { valid: 'unknown', writes: { 3: 12 }, hits: 2 };
  return e === 'lost' ? { valid: false, lost: 4, hits: 2 } : { valid: true, stale: c.fencing ? 3 : 0, hits: 2 };
}

/** A fake runner: records every config it was given; `override` decides some cells' runs, the rest go as expected. */
function fakeRunner(override: (c: Readonly<Config>, nth: number) => Shown | 'throw' | undefined = () => undefined) {
  const calls: Readonly<Config>[] = [];
  const run: RunOne = async (config) => {
    calls.push(config);
    if (config.concurrency === 1) return outcome(config, { valid: true }); // a latency run
    const nth = calls.filter((c) => key(c) === key(config) && c.concurrency !== 1).length;
    const shown = override(config, nth);
    if (shown === 'throw') throw new Error('etcd node n2 not ready after 10 s');
    return outcome(config, shown ?? asExpected(config));
  };
  const cellCalls = (k: string) => calls.filter((c) => key(c) === k && c.concurrency !== 1);
  return { run, calls, cellCalls };
}

async function matrix(argv: string[], fake: ReturnType<typeof fakeRunner>) {
  const lines: string[] = [];
  const results = fs.mkdtempSync(path.join(root, 'm-'));
  const tables = argv.some((a) => a.startsWith('--matrix')) ? [] : ['--matrix=faults'];
  const config = resolveConfig([
    '--lock=all',
    '--time-limit=10',
    '--seed=100',
    `--results=${results}`,
    ...tables,
    ...argv,
  ]);
  const code = await runMatrix(config, new Shutdown(), (l) => lines.push(l), fake.run);
  const dir = fs.readdirSync(path.join(results, 'matrix'));
  const cells = JSON.parse(
    fs.readFileSync(path.join(results, 'matrix', dir[0], 'matrix.json'), 'utf8'),
  ) as MatrixCell[];
  return {
    code,
    lines,
    cells,
    html: fs.readFileSync(path.join(results, 'matrix', dir[0], 'matrix.html'), 'utf8'),
    cell: (lock: string, fault: string, fencing = false) =>
      cells.find((c) => c.lock === lock && c.fault === fault && c.fencing === fencing)!,
  };
}

describe('runMatrix', () => {
  it('prints on its page the command that runs it again, shell-quoted, with its seed once (the one replay renderer)', async () => {
    const results = path.join(fs.mkdtempSync(path.join(root, 'q-')), 'my results');
    const config = resolveConfig([
      '--lock=all',
      '--matrix=faults',
      '--time-limit=10',
      '--seed',
      '100',
      `--results=${results}`,
    ]);
    await runMatrix(config, new Shutdown(), () => {}, fakeRunner().run);
    const dir = fs.readdirSync(path.join(results, 'matrix'));
    const html = fs.readFileSync(path.join(results, 'matrix', dir[0], 'matrix.html'), 'utf8');
    // HTML-escaped: ' is &#39;.
    expect(html).toContain(`--time-limit=10 &#39;--results=${results}&#39; --seed=100</span>`);
    expect(html.match(/--seed/g)).toHaveLength(1);
  });

  it('gives every measured cell the same number of runs, never runs a cell decided by construction, and exits 0 when all match', async () => {
    const fake = fakeRunner();
    const m = await matrix(['--runs=2'], fake);
    expect(m.code).toBe(0);
    expect(m.lines.join('\n')).toContain(
      `${F.measured} measured: ${F.measured} matched; ${F.construction} by construction, not run (${F.refusals} of ${F.refusals} refusals confirmed by the CLI)`,
    );
    const cellRuns = fake.calls.filter((c) => c.concurrency !== 1);
    expect(cellRuns).toHaveLength(2 * F.measured);
    const perCell = new Map<string, number>();
    for (const c of cellRuns) perCell.set(key(c), (perCell.get(key(c)) ?? 0) + 1);
    expect([...perCell.values()].every((n) => n === 2)).toBe(true);
    expect(perCell.size).toBe(F.measured);
    // Seeds follow the matrix's seed.
    expect(fake.cellCalls('redis|pause-holder|plain').map((c) => c.seed)).toEqual([100, 101]);
    for (const k of [
      'none|pause-holder|plain',
      'none|restart-empty|plain',
      'postgres|restart-empty|plain',
      'postgres|pause-holder|fenced',
      'etcd|clock|plain',
      'redis|pause-holder|fenced',
      'zookeeper|clock|plain',
    ]) {
      expect(fake.cellCalls(k), k).toHaveLength(0);
    }
    expect(m.cell('redis', 'pause-holder', true)).toMatchObject({
      decided: 'construction',
      observed: 'refuse',
      matched: true,
      note: expect.stringContaining('refused: --fencing with --lock=redis'),
    });
    expect(m.cell('none', 'restart-empty')).toMatchObject({ decided: 'construction', observed: 'not run', runDir: '' });
    expect(m.cell('etcd', 'pause-holder', true)).toMatchObject({
      decided: 'measured',
      observed: 'safe',
      matched: true,
    });
    expect(m.cell('etcd', 'pause-holder', true).runs).toHaveLength(2);
    // The latency runs: one client per lock, no fault.
    expect(fake.calls.filter((c) => c.concurrency === 1).map((c) => `${c.lock}:${c.nemesis?.length}`)).toEqual(
      BUILTIN_LOCKS.map((lock) => `${lock}:0`),
    );
  });

  it('reruns an inconclusive run whichever way the oracle leans, up to the cap', async () => {
    const fake = fakeRunner((c, nth) => {
      // A "safe" cell whose first run had an unknown verdict, a "lost" cell whose first run's fault never hit.
      if (key(c) === 'etcd|none|plain' && nth === 1) return { valid: 'unknown' };
      if (key(c) === 'redis|pause-holder|plain' && nth === 1) return { valid: true, hits: 0 };
      // A "safe" and a "lost" cell that never get a conclusive run.
      if (key(c) === 'postgres|clock|plain') return { valid: true, hits: 0 };
      if (key(c) === 'redlock|clock|plain') return { valid: 'unknown' };
      return undefined;
    });
    const m = await matrix([], fake);
    expect(fake.cellCalls('etcd|none|plain')).toHaveLength(2);
    expect(fake.cellCalls('redis|pause-holder|plain')).toHaveLength(2);
    expect(fake.cellCalls('postgres|clock|plain')).toHaveLength(3);
    expect(fake.cellCalls('redlock|clock|plain')).toHaveLength(3);
    expect(fake.cellCalls('redis|none|plain')).toHaveLength(1);
    expect(m.cell('redis', 'pause-holder')).toMatchObject({
      observed: 'lost',
      matched: true,
      note: '1 of 2 runs inconclusive, replaced',
    });
    expect(m.cell('redis', 'pause-holder').runs?.map((r) => [r.seed, r.seen, r.conclusive, r.faultHits])).toEqual([
      [100, 'safe', false, 0],
      [101, 'lost', true, 2],
    ]);
    expect(m.cell('etcd', 'none')).toMatchObject({ observed: 'safe', matched: true });
    expect(m.cell('postgres', 'clock')).toMatchObject({
      observed: 'unknown',
      matched: false,
      note: 'inconclusive after 3 runs: no clock story completed',
    });
    expect(m.cell('redlock', 'clock')).toMatchObject({ observed: 'unknown', matched: false });
    expect(m.code).toBe(1);
    expect(m.lines.join('\n')).toContain(
      `${F.measured} measured: ${F.measured - 2} matched, 2 did not; ${F.construction} by construction`,
    );
  });

  it('reports a cell whose harness threw as failed, and goes on with the next cells', async () => {
    const fake = fakeRunner((c) => (key(c) === 'zookeeper|none|plain' ? 'throw' : undefined));
    const m = await matrix([], fake);
    expect(m.cell('zookeeper', 'none')).toMatchObject({
      observed: 'failed',
      matched: false,
      note: 'the harness failed: etcd node n2 not ready after 10 s',
    });
    expect(fake.cellCalls('zookeeper|none|plain')).toHaveLength(1);
    expect(fake.cellCalls('zookeeper|pause-holder|plain')).toHaveLength(1);
    expect(fake.cellCalls('postgres|clock|plain')).toHaveLength(1);
    expect(m.code).toBe(1);
    expect(m.lines.join('\n')).toContain(`${F.measured} measured: ${F.measured - 1} matched, 1 did not (1 failed)`);
  });

  it('takes an INVALID run without lost updates as the lock breaking, never as safe', async () => {
    const fake = fakeRunner((c) =>
      key(c) === 'postgres|pause-holder|plain' ? { valid: false, lost: 0, hits: 1 } : undefined,
    );
    const m = await matrix([], fake);
    expect(m.cell('postgres', 'pause-holder')).toMatchObject({ observed: 'invalid', matched: false });
    expect(m.code).toBe(1);
  });

  it('passes the run options through to every cell', async () => {
    const fake = fakeRunner();
    await matrix(
      ['--ttl=900', '--think=20', '--accounts=3', '--concurrency=4', '--restart-delay=700', '--clock-offset=90'],
      fake,
    );
    for (const c of fake.calls.filter((c) => c.concurrency !== 1)) {
      // restart-empty's column raises --think to 0.4 × TTL (the section must outlast a restart); the rest keep 20.
      const thinkMs = c.nemesis?.includes('restart-empty') ? 360 : 20;
      expect(c).toMatchObject({
        ttlMs: 900,
        thinkMs,
        accounts: 3,
        concurrency: 4,
        restartDelayMs: 700,
        clockOffsetS: 90,
        pauseMs: 1350,
      });
    }
    expect(fake.calls.filter((c) => c.nemesis?.includes('restart-empty')).length).toBeGreaterThan(0);
  });

  it("a --think above restart-empty's floor passes through unchanged", async () => {
    const fake = fakeRunner();
    await matrix(['--think=1500'], fake);
    expect(fake.calls.filter((c) => c.concurrency !== 1).every((c) => c.thinkMs === 1500)).toBe(true);
  });
});

describe('runMatrix, the failure-mode and remedy table (--matrix=remedies)', () => {
  it("runs each scenario with its own options, drops the matrix's remedy switches, confirms the refusals, and runs no latency runs", async () => {
    const fake = fakeRunner();
    const m = await matrix(
      ['--matrix=remedies', '--watchdog', '--restart-delay=100', '--redis-persistence=aof-always', '--think=40'],
      fake,
    );
    expect(m.code).toBe(0);
    expect(m.lines.join('\n')).toContain(
      `${R.measured} measured: ${R.measured} matched; ${R.construction} by construction, not run (${R.refusals} of ${R.refusals} refusals confirmed by the CLI)`,
    );
    expect(fake.calls.filter((c) => c.concurrency === 1)).toHaveLength(0);
    expect(m.cells.every((c) => c.table === 'remedies')).toBe(true);
    const runOf = (lock: string, id: RemedyScenarioId) =>
      fake.calls.find((c) => c.lock === lock && isRemedyRun(c) && scenarioOf(c) === id)!;
    // Long work: a 2.5 s section under a 1 s TTL, long enough to earn a VALID; the watchdog only where the scenario says.
    expect(runOf('redis', 'long-work')).toMatchObject({
      thinkMs: 2500,
      ttlMs: 1000,
      timeLimitS: 30,
      watchdog: false,
      nemesis: [],
    });
    expect(runOf('redlock', 'long-work-watchdog')).toMatchObject({
      thinkMs: 2500,
      ttlMs: 1000,
      timeLimitS: 30,
      watchdog: true,
    });
    expect(runOf('etcd', 'long-work')).toMatchObject({ thinkMs: 2500, watchdog: false });
    // The restart remedies: the fault table's cap and floor, the delay raised to the TTL, the user's switches dropped.
    expect(runOf('redlock', 'restart-delay')).toMatchObject({
      restartDelayMs: 2000,
      redisPersistence: 'none',
      redisServer: 'redis',
      nemesisIntervalMs: 500,
      thinkMs: 800,
      watchdog: false,
      timeLimitS: 20,
    });
    expect(runOf('redis', 'restart-aof')).toMatchObject({
      restartDelayMs: 0,
      redisPersistence: 'aof-always',
      watchdog: false,
      timeLimitS: 10,
    });
    expect(runOf('redis', 'pause-watchdog')).toMatchObject({
      nemesis: ['pause-holder'],
      watchdog: true,
      thinkMs: 40,
      timeLimitS: 20,
      nemesisIntervalMs: 1000,
    });
    expect(runOf('zookeeper', 'delay-write-fenced')).toMatchObject({ nemesis: ['delay-write'], fencing: true });
    expect(runOf('redis', 'failover')).toMatchObject({ nemesis: ['failover'] });
    // The retry remedy: restart-empty as the fault table fires it, with redlock-npm's own loop for the package's.
    expect(runOf('redlock-npm', 'restart-retry')).toMatchObject({
      nemesis: ['restart-empty'],
      retry: 'harness',
      restartDelayMs: 0,
      redisPersistence: 'none',
      redisServer: 'redis',
      nemesisIntervalMs: 500,
      thinkMs: 800,
    });
    expect(fake.calls.filter((c) => c.retry === 'harness').map((c) => c.lock)).toEqual(['redlock-npm']);
    expect(m.cells.find((c) => c.lock === 'redlock' && c.columnId === 'restart-retry')).toMatchObject({
      decided: 'construction',
      observed: 'refuse',
      matched: true,
      note: expect.stringContaining('--retry=harness with --lock=redlock'),
    });
    // The single-Redis locks run on the failover pair: redis, redis-py's Lock and the npm single-Redis rows — and
    // simple-redis-mutex, the one with a token, once more with --fencing (failover-fenced).
    expect(
      fake.calls.filter((c) => c.nemesis?.includes('failover')).map((c) => `${c.lock}${c.fencing ? ' fenced' : ''}`),
    ).toEqual([
      'redis',
      'redis-py',
      'redis-semaphore',
      'redlock-universal',
      'redis-lock',
      'simple-redis-mutex',
      'simple-redis-mutex fenced',
    ]);
    expect(m.cells.find((c) => c.lock === 'etcd' && c.columnId === 'long-work-watchdog')).toMatchObject({
      decided: 'construction',
      observed: 'refuse',
      matched: true,
      note: expect.stringContaining('--watchdog with --lock=etcd'),
    });
    expect(m.cells.find((c) => c.lock === 'redis' && c.columnId === 'delay-write-fenced')).toMatchObject({
      observed: 'refuse',
      matched: true,
    });
    expect(m.cells.find((c) => c.lock === 'postgres' && c.columnId === 'delay-write-fenced')).toMatchObject({
      decided: 'construction',
      expected: 'safe',
      observed: 'not run',
    });
  });

  it('holds a remedy cell to the same rules: a delayed write that never hit is rerun, a watchdog that saved a paused holder contradicts the oracle', async () => {
    const fake = fakeRunner((c, nth) => {
      if (!isRemedyRun(c)) return undefined;
      if (c.lock === 'redlock' && scenarioOf(c) === 'delay-write' && nth === 1) return { valid: true, hits: 0 };
      if (c.lock === 'redis' && scenarioOf(c) === 'pause-watchdog') return { valid: true, hits: 3 };
      return undefined;
    });
    const m = await matrix(['--matrix=remedies'], fake);
    const cell = (lock: string, id: string) => m.cells.find((c) => c.lock === lock && c.columnId === id)!;
    expect(cell('redlock', 'delay-write')).toMatchObject({
      observed: 'lost',
      matched: true,
      note: '1 of 2 runs inconclusive, replaced',
    });
    expect(cell('redlock', 'delay-write').runs?.[0]).toMatchObject({
      conclusive: false,
      why: 'no delay-write story completed',
    });
    expect(cell('redis', 'pause-watchdog')).toMatchObject({ expected: 'lost', observed: 'safe', matched: false });
    expect(m.code).toBe(1);
  });

  it("matches a cell's liveness expectation too: redlock-npm's livelock may show in the fault table, its remedy must recover", async () => {
    const stalled = { liveness: { recoveryMs: { median: 2400, max: 6100, unrecovered: 1 }, longestStallMs: 5200 } };
    const recovered = { liveness: { recoveryMs: { median: 120, max: 310, unrecovered: 0 }, longestStallMs: 0 } };
    // As expected: the package's loop livelocks beside its lost update; with ours it recovers (and still loses).
    const m = await matrix(['--matrix=all'], fakeRunner());
    const pkg = m.cells.find((c) => c.lock === 'redlock-npm' && c.table === 'faults' && c.fault === 'restart-empty')!;
    const ours = m.cells.find((c) => c.lock === 'redlock-npm' && c.columnId === 'restart-retry')!;
    expect(pkg).toMatchObject({ expected: 'lost', expectedLiveness: 'may-livelock', observed: 'lost', matched: true });
    expect(pkg.note).toMatch(/^livelocked, as the oracle says it may: longest stall 3\.1 s \(the package's retry loop/);
    expect(ours).toMatchObject({ expected: 'lost', expectedLiveness: 'recovers', observed: 'lost', matched: true });
    expect(m.code).toBe(0);
    expect(m.html).toContain('expected lost, may livelock');
    // The page's remedy answers name the livelocked lock with its stall, and whether the remedy held.
    expect(m.html).toContain(
      'redlock-npm (unavailable up to 3.1 s after each fault (median 2.4 s); longest stall 3.1 s)',
    );
    expect(m.html).toMatch(/redlock-npm: <a [^>]*>held: unavailable up to 300 ms after each fault/);
    // Swapped: the package's cell recovering still matches (it may livelock); the remedy stalling does not.
    const swapped = await matrix(
      ['--matrix=all'],
      fakeRunner((c) =>
        c.lock !== 'redlock-npm' || !c.nemesis?.includes('restart-empty') || c.restartDelayMs > 0
          ? undefined
          : { valid: false, lost: 4, hits: 2, ...(c.retry === 'harness' ? stalled : recovered) },
      ),
    );
    const pkg2 = swapped.cells.find(
      (c) => c.lock === 'redlock-npm' && c.table === 'faults' && c.fault === 'restart-empty',
    )!;
    const ours2 = swapped.cells.find((c) => c.lock === 'redlock-npm' && c.columnId === 'restart-retry')!;
    expect(pkg2).toMatchObject({ observed: 'lost', matched: true });
    expect(pkg2.note).toBeUndefined();
    expect(ours2).toMatchObject({ observed: 'lost', matched: false });
    expect(ours2.note).toMatch(
      /^expected it to recover \(each try is one package round.*\), but a run stalled 5\.2 s past the TTL$/,
    );
    expect(swapped.html).toContain('a cell the oracle expects to recover stalled past the TTL');
    expect(swapped.code).toBe(1);
  });

  it("keeps each run's broken promises and sums them per cell; a run from before the checker counts none", async () => {
    const m = await matrix(
      [],
      fakeRunner((c) =>
        c.lock === 'redis' && c.nemesis?.[0] === 'restart-empty' && !c.fencing
          ? { valid: false, lost: 2, hits: 1, broke: 3 }
          : undefined,
      ),
    );
    const cell = m.cells.find((c) => c.lock === 'redis' && c.fault === 'restart-empty' && !c.fencing)!;
    expect(cell.promise).toEqual({ broken: 3, outlived: 1, unknown: 0, known: true, runs: 1 });
    expect(cell.runs![0].promise).toEqual({ broken: 3, outlived: 1, unknown: 0, known: true });
    expect(m.cells.find((c) => c.lock === 'redis' && c.fault === 'none')!.promise).toBeUndefined();
    expect(m.html).toContain('<div class="exp">broke its promise: 3 broken</div>');
  });

  it('fails a cell the oracle expects to keep its promise on its first broken one, and names it', async () => {
    const m = await matrix(
      [],
      fakeRunner((c) =>
        c.lock === 'etcd' && c.nemesis?.[0] === 'pause-holder' && !c.fencing
          ? { valid: false, lost: 2, hits: 1, broke: 1 }
          : undefined,
      ),
    );
    const cell = m.cells.find((c) => c.lock === 'etcd' && c.fault === 'pause-holder' && !c.fencing)!;
    expect(cell).toMatchObject({ observed: 'lost', expected: 'lost', expectedPromise: 'kept', matched: false });
    expect(cell.note).toContain('broke its promise 1× where the oracle expects it kept');
    expect(m.html).toContain('<div class="exp">broke its promise: 1 broken (expected 0)</div>');
    expect(m.code).toBe(1);
  });

  it('--stop-on-lost-update reaches every cell but those that measure liveness, whose runs go to their limit', async () => {
    const fake = fakeRunner();
    await matrix(['--matrix=all', '--stop-on-lost-update'], fake);
    const cells = fake.calls.filter((c) => c.concurrency !== 1);
    const full = cells.filter((c) => !c.stopOnLostUpdate);
    // The cells with a liveness expectation: redlock-npm under restart-empty (the fault table's cell, may livelock; the
    // remedy table's retry loop, recovers), the npm Redlocks' restart-empty cells, and every five-master row under
    // one paused master (recovers, or stalls).
    expect(full.map((c) => `${c.lock} ${c.nemesis?.join(',')} ${c.retry}`).sort()).toEqual([
      'redis-semaphore-redlock pause-node library',
      'redis-semaphore-redlock restart-empty library',
      'redlock pause-node library',
      'redlock-npm pause-node library',
      'redlock-npm restart-empty harness',
      'redlock-npm restart-empty library',
      'redlock-sesame pause-node library',
      'redlock-sesame restart-empty library',
      'redlock-v4 pause-node library',
      'redlock-v4 restart-empty library',
    ]);
    expect(full.every((c) => c.argv.includes('--stop-on-lost-update=false'))).toBe(true);
    expect(cells.filter((c) => c.stopOnLostUpdate).length).toBeGreaterThanOrEqual(A.measured - 10);
  });

  it('a cell whose every run starved shows starvation as its finding, naming which client wrote how much', async () => {
    const starved = {
      valid: 'unknown' as const,
      writes: { 3: 12 },
      unknownReasons: ['no concurrency: only client 3 committed writes (12) although --concurrency=5'],
    };
    const fake = fakeRunner((c) =>
      c.lock === 'postgres' && isRemedyRun(c) && !c.nemesis?.length ? starved : undefined,
    );
    const m = await matrix(['--matrix=remedies'], fake);
    const cell = m.cells.find((c) => c.lock === 'postgres' && c.columnId === 'long-work')!;
    // The oracle expects the starvation (a liveness finding): three runs, all starved, match it.
    expect(cell).toMatchObject({
      decided: 'measured',
      expected: 'safe-may-starve',
      observed: 'starved',
      matched: true,
    });
    expect(cell.runs).toHaveLength(3);
    expect(cell.note).toBe(
      'starved in all 3 runs: the verdict was unknown (starvation: client 3 committed all 12 writes, the other 4 client(s) none)',
    );
    // The page shows the reason on the cell itself.
    expect(m.html).toContain('starvation: client 3 committed all 12 writes, the other 4 client(s) none');
  });

  it('the same cell with a first run that starved and a second with two writers is safe, and matches', async () => {
    const fake = fakeRunner((c, nth) =>
      c.lock === 'postgres' && isRemedyRun(c) && !c.nemesis?.length && nth === 1
        ? { valid: 'unknown', writes: { 2: 9 }, unknownReasons: ['no concurrency: only client 2 committed writes (9)'] }
        : c.lock === 'postgres' && isRemedyRun(c) && !c.nemesis?.length
          ? { valid: true }
          : undefined,
    );
    const m = await matrix(['--matrix=remedies'], fake);
    const cell = m.cells.find((c) => c.lock === 'postgres' && c.columnId === 'long-work')!;
    expect(cell).toMatchObject({ expected: 'safe-may-starve', observed: 'safe', matched: true });
    expect(cell.runs?.map((r) => r.seen)).toEqual(['starved', 'safe']);
  });

  it('a cell whose runs stay unknown for another reason shows unknown with it, and does not match', async () => {
    const fake = fakeRunner((c) =>
      c.lock === 'postgres' && isRemedyRun(c) && !c.nemesis?.length
        ? { valid: 'unknown', unknownReasons: ['too few committed writes: 3 (at least 10 needed)'] }
        : undefined,
    );
    const m = await matrix(['--matrix=remedies'], fake);
    const cell = m.cells.find((c) => c.lock === 'postgres' && c.columnId === 'long-work')!;
    expect(cell).toMatchObject({ expected: 'safe-may-starve', observed: 'unknown', matched: false });
    expect(cell.note).toContain('too few committed writes');
  });

  it.each([
    [['--min-writes=0'], /--min-writes=0: below the default/],
    [['--concurrency=1'], /--concurrency=1: a measured cell needs at least 2 clients/],
  ])('refuses %j (a trivial "safe"), before running anything', async (argv, message) => {
    const fake = fakeRunner();
    await expect(matrix(argv, fake)).rejects.toThrow(message);
    expect(fake.calls).toEqual([]);
  });

  it('runs both tables by default, the fault table first', async () => {
    const fake = fakeRunner();
    const m = await matrix(['--matrix=all'], fake);
    expect(m.code).toBe(0);
    expect(m.lines.join('\n')).toContain(
      `${A.measured} measured: ${A.measured} matched; ${A.construction} by construction, not run (${A.refusals} of ${A.refusals} refusals confirmed by the CLI)`,
    );
    const tables = m.cells.map((c) => c.table);
    expect(tables.indexOf('remedies')).toBe(tables.lastIndexOf('faults') + 1);
  });
});

describe('isolatedRunner', () => {
  it("stops a failed run's servers at once and leaves nothing registered on the matrix's shutdown", async () => {
    const stopped: string[] = [];
    const outer = new Shutdown();
    const run = isolatedRunner(
      outer,
      () => {},
      async (_config, shutdown) => {
        shutdown.add('stop cluster', () => {
          stopped.push(`cluster (${shutdown.reason})`);
        });
        throw new Error('boom');
      },
    );
    await expect(run(resolveConfig(['--lock=redis', '--seed=1']))).rejects.toThrow('boom');
    expect(stopped).toEqual(['cluster (error)']);
    await outer.runAll('signal');
    expect(stopped).toEqual(['cluster (error)']);
  });

  it("relays a Ctrl-C to the running cell's teardown", async () => {
    const stopped: string[] = [];
    const outer = new Shutdown();
    let release!: () => void;
    const run = isolatedRunner(
      outer,
      () => {},
      async (config, shutdown) => {
        shutdown.add('stop cluster', () => {
          stopped.push(`cluster (${shutdown.reason})`);
        });
        await new Promise<void>((r) => (release = r));
        return outcome(config, { valid: true });
      },
    );
    const running = run(resolveConfig(['--lock=redis', '--seed=1']));
    await new Promise((r) => setImmediate(r));
    await outer.runAll('signal');
    expect(stopped).toEqual(['cluster (signal)']);
    release();
    await running;
  });
});

// issue 48: the rows added since the last whole matrix stayed "not measured yet" on the findings page, because the
// only way to measure them was every row again. --rows measures some, and `npm run findings` lays them over a whole one.
describe('--rows: the matrix of some locks', () => {
  it('runs and writes only the named rows, their latency runs included', async () => {
    const fake = fakeRunner();
    const m = await matrix(['--rows=sql-lease,advisory-lock-pgbouncer'], fake);
    expect(m.lines.filter((l) => l.includes('✗'))).toEqual([]);
    expect(m.code).toBe(0);
    expect(new Set(m.cells.map((c) => c.lock))).toEqual(new Set(['sql-lease', 'advisory-lock-pgbouncer']));
    expect(new Set(fake.calls.map((c) => c.lock))).toEqual(new Set(['sql-lease', 'advisory-lock-pgbouncer']));
    expect(fake.calls.some((c) => c.concurrency === 1)).toBe(true);
  });

  it('plans every column for each named row, the same cells as the whole matrix has for them', () => {
    const cells = (plan: ReturnType<typeof matrixPlan>) => plan.map((p) => [p.lock, p.col.id, p.oracle]);
    const whole = matrixPlan('all').filter((p) => p.lock === 'sql-lease-dbtime');
    expect(cells(matrixPlan('all', ['sql-lease-dbtime']))).toEqual(cells(whole));
    expect(whole.length).toBeGreaterThan(10);
  });

  it.each([
    [['--lock=all', '--rows=sql-lease,nope'], /--rows: "nope" is not a built-in lock\. Valid: none, redis/],
    [['--lock=all', '--rows=,'], /--rows=, names no lock/],
    [
      ['--lock=redis', '--rows=redis'],
      /--rows applies to --lock=all \(which locks' rows to measure\); --lock=redis is one run/,
    ],
  ])('refuses %j', (argv, message) => {
    expect(() => resolveConfig(argv)).toThrow(message);
  });
});
