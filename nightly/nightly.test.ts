import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../checkers/run-results.ts';
import type { RunOne } from '../matrix/cell-decision.ts';
import { nightlyCommand, nightMatrix } from './nightly.ts';
import type { NightlyCell, NightlyResult } from './nightly-result.ts';
import { parseCommandLine } from '../cli/command-line.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { isRemedyRun, livenessAsExpected, oracleExpectation } from '../test/support/oracle-expectation.ts';
import { Shutdown } from '../common/shutdown.ts';
import { cellKey, cellWeightS, nightlyPlan, shardSlice, type PlannedCell } from './nightly-plan.ts';
import { libraryTurnOf } from './nightly-library-sample.ts';
import { lostReplyCellsOf, lostReplyNightCell, type lostReplyCells } from './lost-reply-cells.ts';

/**
 * The nightly job on a fake runner (no servers, like matrix.test.ts does for runMatrix): what it writes, its exit
 * codes, the user's expectations, and that three shards merged equal one unsharded night, cell for cell.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-nightly-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

type Shown = {
  valid: RunResults['valid'];
  lost?: number;
  stale?: number;
  hits?: number;
  p99?: number;
  /** One client committed all of these writes, the others none (starvation). */
  starvedWrites?: number;
};

/** What the oracle expects of a cell (a plugin's cells are safe), shown by a run whose fault hit. */
function asExpected(c: Readonly<Config>): Shown {
  const e = oracleExpectation(c);
  if (e === 'safe-may-starve') return { valid: 'unknown', starvedWrites: 12, hits: 2 };
  return e === 'lost' ? { valid: false, lost: 4, hits: 2 } : { valid: true, stale: c.fencing ? 3 : 0, hits: 2 };
}

function fakeRunner(override: (c: Readonly<Config>) => Shown | undefined = () => undefined): RunOne {
  return async (config) => {
    const s = override(config) ?? asExpected(config);
    const q = { count: 1, p50: 1, p90: 1, p99: s.p99 ?? 2, max: 2 };
    const fault = config.nemesis?.[0];
    const results = {
      valid: s.valid,
      lostUpdates: s.lost ?? 0,
      staleWritesRejected: s.stale ?? 0,
      checkers: { 'lost-updates': { valid: s.valid } },
      latency: { acquire: q, read: q, write: q, release: q },
      ...(fault && s.hits !== undefined ? { faultHits: { [fault]: { fired: 2, hit: s.hits, shots: [] } } } : {}),
      ...(s.starvedWrites ? { progress: { committedWrites: s.starvedWrites, writers: [3] } } : {}),
      ...livenessAsExpected(config),
    } as unknown as RunResults;
    const runDir = path.join(
      config.resultsDir,
      path.basename(config.lock),
      `${config.nemesis?.join(',') || 'none'}-${config.fencing ? 'f' : 'p'}-${config.seed}`,
    );
    return { exitCode: s.valid === true ? 0 : s.valid === false ? 1 : 2, runDir, results };
  };
}

async function night(argv: string[], run = fakeRunner()) {
  const lines: string[] = [];
  const config = parseCommandLine(['nightly', '--seed=100', ...argv]);
  const code = await nightlyCommand(config, new Shutdown(), (l) => lines.push(l), run);
  return { code, lines, dir: config.resultsDir };
}

const read = (dir: string, file = 'nightly.json') =>
  JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as NightlyResult;
const cell = (r: NightlyResult, lock: string, fault: string, fencing = false) =>
  r.cells.find((c) => c.lock === lock && c.fault === fault && c.fencing === fencing)!;
const junitCase = (xml: string, name: string) =>
  new RegExp(`<testcase [^>]*name="${name}">[\\s\\S]*?</testcase>`).exec(xml)?.[0] ?? '';
/** A cell without where its runs are and how long it took: what must be equal between a sharded and an unsharded night. */
const decided = ({ runDir: _r, wallMs: _w, runs, ...c }: NightlyCell) => ({
  ...c,
  runs: runs?.map(({ runDir: _d, ...r }) => r),
});

/** Both tables' size, from the oracle data: every cell is a JUnit case; those decided by construction skip. */
/** The night's turn of the npm library rows: the tests' nights run with --seed=100. */
const TURN = libraryTurnOf(100);
const CELLS = nightlyPlan([], 'all', TURN).length;
const SKIPPED = nightlyPlan([], 'all', TURN).filter((p) => p.oracle.decided === 'construction').length;

describe('nightly', () => {
  it('writes nightly.json, one JUnit case per cell, the summary, and exits 0 when every measured cell matches', async () => {
    const summaryFile = path.join(root, 'step-summary.md');
    process.env.GITHUB_STEP_SUMMARY = summaryFile;
    const { code, dir } = await night([`--results=${path.join(root, 'n1')}`]).finally(
      () => delete process.env.GITHUB_STEP_SUMMARY,
    );
    expect(code).toBe(0);
    const r = read(dir);
    expect(r.cells).toHaveLength(CELLS);
    // CI-sized defaults: 10 s runs, each ending at its first lost update.
    expect(r.settings).toEqual(['--time-limit=10', '--stop-on-lost-update']);
    expect(cell(r, 'redis', 'pause-holder')).toMatchObject({
      observed: 'lost',
      matched: true,
      from: 'oracle',
      faultHits: 2,
      runDir: 'redis/pause-holder-p-100',
    });
    // Each measured cell's wall time is recorded (bench nightly-plan sizes shards from it); a cell not run has none.
    for (const c of r.cells) {
      if (c.decided === 'construction') expect(c.wallMs).toBeUndefined();
      else expect(c.wallMs).toBeGreaterThanOrEqual(0);
    }
    const xml = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(xml).toContain(
      `<testsuites name="fencepost nightly" tests="${CELLS}" failures="0" errors="0" skipped="${SKIPPED}"`,
    );
    expect(xml.match(/<testcase /g)).toHaveLength(CELLS);
    expect(junitCase(xml, 'redis × with --fencing \\(holder paused\\)')).toContain(
      '<skipped message="decided by construction, not run: refused: --fencing with --lock=redis',
    );
    const summary = fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## fencepost nightly: ✅ every measured cell matched its expectation (exit 0)');
    expect(summary).toContain(
      '| cell | expected (from) | observed | what it shows | runs | lost | broke its promise | fault hits |',
    );
    expect(summary).toContain(
      '| redis × holder paused > TTL | lost (oracle) | lost ✓ | counterexample: 4 update(s) lost (seed 100) | 1 | 4 | – | 2 |',
    );
    expect(fs.readFileSync(summaryFile, 'utf8')).toBe(`${summary}\n`);
  });

  it("adds the night's turn of lost-reply cells after the plan, first shard only, and a contradicted one fails", async () => {
    const seen: { turn: number | 'all'; firstIndex: number }[] = [];
    const replays: typeof lostReplyCells = async (turn, opts) => {
      seen.push({ turn, firstIndex: opts.firstIndex });
      const { lock, cell } = lostReplyCellsOf(turn)[0];
      return [lostReplyNightCell({ index: opts.firstIndex, lock, cell, seed: opts.seed, wallMs: 1 }, [])];
    };
    const config = parseCommandLine(['nightly', '--seed=100', `--results=${path.join(root, 'lr')}`]);
    const code = await nightlyCommand(config, new Shutdown(), () => {}, fakeRunner(), replays);
    expect(seen).toEqual([{ turn: libraryTurnOf(100), firstIndex: CELLS }]);
    const r = read(config.resultsDir);
    expect(r.cells).toHaveLength(CELLS + 1);
    // No run followed its script: the cell is inconclusive, and the night says so (exit 2).
    expect(r.cells.at(-1)).toMatchObject({ index: CELLS, observed: 'unknown', matched: false });
    expect(r.cells.at(-1)!.column).toMatch(/^lost reply: /);
    expect(code).toBe(2);
    const shard = parseCommandLine(['nightly', '--seed=100', '--shard=2/3', `--results=${path.join(root, 'lr2')}`]);
    await nightlyCommand(shard, new Shutdown(), () => {}, fakeRunner(), replays);
    expect(seen).toHaveLength(1);
  });

  it('runs both tables by default, cells keyed apart, and closes with both counts; --matrix narrows it', async () => {
    const both = await night([`--results=${path.join(root, 'both')}`]);
    const r = read(both.dir);
    expect(r.cells.filter((c) => c.table === 'faults')).toHaveLength(nightlyPlan([], 'faults', TURN).length);
    expect(r.cells.filter((c) => c.table === 'remedies')).toHaveLength(nightlyPlan([], 'remedies', TURN).length);
    // Three remedy scenarios share redis × pause-holder / restart-empty with the fault table: each keeps its own cell.
    const keys = r.cells.map(cellKey);
    expect(new Set(keys).size).toBe(keys.length);
    const count = (t: 'faults' | 'remedies') => {
      const plan = nightlyPlan([], t, TURN);
      const m = plan.filter((p) => p.oracle.decided === 'measured').length;
      const refusals = plan.filter((p) => p.oracle.decided === 'construction' && p.oracle.expect === 'refuse').length;
      return `${m} measured: ${m} matched; ${plan.length - m} by construction, not run (${refusals} of ${refusals} refusals confirmed by the CLI)`;
    };
    expect(both.lines.join('\n')).toContain(
      `nightly: exit 0; fault table: ${count('faults')} · remedy table: ${count('remedies')}`,
    );
    for (const t of ['faults', 'remedies'] as const) {
      const one = await night([`--results=${path.join(root, `only-${t}`)}`, `--matrix=${t}`]);
      const cells = read(one.dir).cells;
      expect(cells).toHaveLength(nightlyPlan([], t, TURN).length);
      expect(cells.every((c) => c.table === t)).toBe(true);
    }
  });

  it.each([['--min-writes=0'], ['--concurrency=1']])('refuses %s before running anything (exit 254)', async (arg) => {
    let ran = 0;
    const err = await night([`--results=${path.join(root, 'trivial')}`, arg], async () => {
      ran++;
      throw new Error('must not run');
    }).then(
      () => null,
      (e: unknown) => e as Error & { exitCode: number },
    );
    expect(err?.exitCode).toBe(254);
    expect(ran).toBe(0);
  });

  it('compares tonight with a baseline: verdict changes, and a latency regression flagged but not failed', async () => {
    const base = await night([`--results=${path.join(root, 'b1')}`]);
    const slower = fakeRunner((c) =>
      c.lock === 'etcd' && c.nemesis?.length === 0 && !isRemedyRun(c) ? { valid: true, p99: 40 } : undefined,
    );
    const { code, dir } = await night([`--results=${path.join(root, 'b2')}`, `--baseline=${base.dir}`], slower);
    expect(code).toBe(0);
    const page = fs.readFileSync(path.join(dir, 'comparison.html'), 'utf8');
    expect(page).toContain(`0 of ${CELLS} cells changed their outcome; 1 flagged for a latency regression`);
    expect(page).toMatch(/data-key="etcd\|none\|plain">[\s\S]*?p99 \(\+1900 %\) <strong class="flag"/);
    expect(page).toContain('href="./redis/pause-holder-p-100/report.html"');
    expect(page).toContain('href="../b1/redis/pause-holder-p-100/report.html"');
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
      '| etcd × no fault | safe (matched) | safe (matched) | 1.00 ms → 1.00 ms (+0 %) | 2.00 ms → 40.0 ms (+1900 %) ⚠️ |',
    );
  });

  it("applies the user's expectations: a flipped cell fails its JUnit case and exits 1; a plugin lock gets its own cell", async () => {
    const file = path.join(root, 'flip.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          cells: [
            { lock: 'redis', fault: 'none', expect: 'lost', why: 'testing the flip' },
            {
              lock: path.resolve('examples/my-lock.ts'),
              fault: 'pause-holder',
              expect: 'safe',
              why: 'our lock must survive a paused holder',
            },
          ],
        },
        null,
        2,
      ),
    );
    const { code, dir } = await night([`--results=${path.join(root, 'flip')}`, `--expectations=${file}`]);
    expect(code).toBe(1);
    const r = read(dir);
    expect(r.cells).toHaveLength(CELLS + 1);
    expect(cell(r, 'redis', 'none')).toMatchObject({
      expected: 'lost',
      observed: 'safe',
      matched: false,
      from: `${file}:3`,
    });
    expect(cell(r, './examples/my-lock.ts', 'pause-holder')).toMatchObject({
      decided: 'measured',
      expected: 'safe',
      observed: 'safe',
      matched: true,
      from: `${file}:9`,
      index: CELLS,
    });
    const xml = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(xml).toContain(`tests="${CELLS + 1}" failures="1" errors="0" skipped="${SKIPPED}"`);
    expect(junitCase(xml, 'redis × no fault')).toMatch(
      /<failure message="contradicted: expected lost \(from .*flip\.json:3: testing the flip\), observed safe; 1 run, 0 lost updates in the run shown; report: .*redis\/none-p-100\/report\.html" type="contradicts-expectation">/,
    );
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
      '❌ a cell contradicts its expectation (exit 1)',
    );
  });

  it("--cells=expectations runs only the file's cells (a user's repository testing its own locks), numbered from 0", async () => {
    const file = path.join(root, 'mine.json');
    const mine = path.resolve('examples/my-lock.ts');
    fs.writeFileSync(
      file,
      JSON.stringify({
        cells: [
          { lock: mine, fault: 'none', expect: 'safe' },
          { lock: mine, fault: 'restart-empty', expect: 'lost' },
        ],
      }),
    );
    const seen: string[] = [];
    const run = fakeRunner((c) => {
      seen.push(`${c.lock}|${c.nemesis?.join(',') ?? 'none'}`);
      return c.nemesis?.[0] === 'restart-empty' ? { valid: false, lost: 2, hits: 2 } : undefined;
    });
    const { code, dir } = await night(
      [`--results=${path.join(root, 'mine')}`, `--expectations=${file}`, '--cells=expectations'],
      run,
    );
    expect(code).toBe(0);
    expect(seen).toEqual(['./examples/my-lock.ts|', './examples/my-lock.ts|restart-empty']);
    const r = read(dir);
    expect(r.cells.map((c) => [c.index, c.fault, c.matched])).toEqual([
      [0, 'none', true],
      [1, 'restart-empty', true],
    ]);
    expect(r.command).toContain('nightly --cells=expectations');
    expect(fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8')).toContain('tests="2" failures="0"');
    const none = parseCommandLine([
      'nightly',
      '--cells=expectations',
      `--expectations=${path.join(root, 'absent.json')}`,
    ]);
    await expect(nightlyCommand(none, new Shutdown(), () => {}, run)).rejects.toThrow(
      /no such file|does not exist|names no cell|absent/,
    );
  });

  it('exits 2 when a measured cell stays inconclusive, and reports it as a JUnit error', async () => {
    const missing = fakeRunner((c) =>
      c.lock === 'postgres' && c.nemesis?.[0] === 'clock' ? { valid: true, hits: 0 } : undefined,
    );
    const { code, dir } = await night([`--results=${path.join(root, 'unknown')}`], missing);
    expect(code).toBe(2);
    expect(junitCase(fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8'), 'postgres × clock jump on Redis')).toContain(
      '<error message="inconclusive: expected safe (from oracle), observed unknown; 3 runs',
    );
  });

  it('refuses a user cell the CLI would refuse before running anything, naming the file line', async () => {
    const file = path.join(root, 'refused.json');
    fs.writeFileSync(
      file,
      '{ "cells": [\n  { "lock": "redis", "fault": "pause-holder", "fencing": true, "expect": "safe" }\n] }',
    );
    let ran = 0;
    const err = await night([`--results=${path.join(root, 'refused')}`, `--expectations=${file}`], async () => {
      ran++;
      throw new Error('must not run');
    }).then(
      () => null,
      (e: unknown) => e as Error & { exitCode: number },
    );
    if (!err) throw new Error('expected the night to be refused');
    expect(err.exitCode).toBe(254);
    expect(err.message).toContain(
      'refused.json:2: redis × with --fencing (holder paused): --fencing with --lock=redis',
    );
    expect(ran).toBe(0);
  });

  it.each([
    ['restart-empty', 'uses no Redis master'],
    ['clock', 'the LD_PRELOAD clock shim cannot move it'],
  ])(
    'refuses a user cell whose fault cannot act on the lock (etcd × %s) before running anything, exit 254',
    async (fault, why) => {
      const file = path.join(root, `cannot-act-${fault}.json`);
      fs.writeFileSync(file, `{ "cells": [\n  { "lock": "etcd", "fault": "${fault}", "expect": "safe" }\n] }`);
      let ran = 0;
      const err = await night(
        [`--results=${path.join(root, `cannot-act-${fault}`)}`, `--expectations=${file}`],
        async () => {
          ran++;
          throw new Error('must not run');
        },
      ).then(
        () => null,
        (e: unknown) => e as Error & { exitCode: number },
      );
      if (!err) throw new Error('expected the night to be refused');
      expect(err.exitCode).toBe(254);
      expect(err.message).toContain(`cannot-act-${fault}.json:2: etcd × `);
      expect(err.message).toContain(why);
      expect(ran).toBe(0);
    },
  );

  it('--parallel=2 runs two cells at a time, never more, and writes the same night, cell for cell, in plan order', async () => {
    let running = 0;
    let most = 0;
    const inner = fakeRunner();
    // Each run takes a moment, so the workers overlap; the count says how many were in flight at once.
    const RUN_MS = 2;
    const slow: RunOne = async (c) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, RUN_MS));
      running--;
      return inner(c);
    };
    const one = await night([`--results=${path.join(root, 'serial')}`, '--parallel=1']);
    const two = await night([`--results=${path.join(root, 'parallel')}`, '--parallel=2'], slow);
    expect(most).toBe(2);
    expect(two.code).toBe(one.code);
    const a = read(one.dir);
    const b = read(two.dir);
    expect(b.cells.map(decided)).toEqual(a.cells.map(decided));
    expect(b.settings).toEqual(a.settings);
    expect(b.command).toContain('--parallel=2');
    expect(read(one.dir).command).not.toContain('--parallel');
  });

  it('runs two cells at a time by default where there are two cores, one where there is one', () => {
    expect(parseCommandLine(['nightly']).parallel).toBe(os.availableParallelism() >= 2 ? 2 : 1);
    expect(parseCommandLine(['nightly', '--parallel=1'])).toMatchObject({ parallel: 1 });
  });

  it('shards are balanced by time, not count: the 30 s long-work cells spread, the loads within one cell of each other', () => {
    const plan = nightlyPlan([], 'all');
    const slices = [1, 2, 3].map((index) => shardSlice(plan, { index, count: 3 }, 10));
    const measuredIn = (s: PlannedCell[]) => s.filter((c) => c.oracle.decided === 'measured');
    const load = slices.map((s) => measuredIn(s).reduce((sum, c) => sum + cellWeightS(c, 10), 0));
    const heaviest = Math.max(...plan.map((c) => cellWeightS(c, 10)));
    expect(Math.max(...load) - Math.min(...load)).toBeLessThanOrEqual(heaviest);
    // Disjoint and whole; each in plan order.
    const all = slices.flatMap((s) => measuredIn(s).map((c) => c.index));
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(plan.filter((c) => c.oracle.decided === 'measured').length);
    for (const s of slices) expect(s.map((c) => c.index)).toEqual([...s.map((c) => c.index)].sort((a, b) => a - b));
    // The same split on every machine: it depends on the plan and --time-limit alone.
    expect(shardSlice(plan, { index: 2, count: 3 }, 10)).toEqual(slices[1]);
    // The long-work cells (30 s runs) are not piled on one shard.
    const longWork = slices.map((s) => measuredIn(s).filter((c) => c.columnId?.startsWith('long-work')).length);
    expect(Math.max(...longWork) - Math.min(...longWork)).toBeLessThanOrEqual(1);
  });

  it('three shards merged equal one unsharded night, cell for cell', async () => {
    // Some cells inconclusive or contradicting, so the merge has more than matches to carry.
    const mixed = () =>
      fakeRunner((c) =>
        c.lock === 'zookeeper' && c.nemesis?.length === 0
          ? { valid: 'unknown' }
          : c.lock === 'postgres' && c.nemesis?.[0] === 'pause-holder'
            ? { valid: false, lost: 1, hits: 1 }
            : undefined,
      );
    const whole = await night([`--results=${path.join(root, 'whole')}`], mixed());
    const shards: Awaited<ReturnType<typeof night>>[] = [];
    for (const i of [1, 2, 3])
      shards.push(await night([`--results=${path.join(root, `shard${i}`)}`, `--shard=${i}/3`], mixed()));
    const measuredPerShard = shards.map(
      (s) =>
        read(s.dir, `nightly.shard-${shards.indexOf(s) + 1}-of-3.json`).cells.filter((c) => c.decided === 'measured')
          .length,
    );
    // Balanced by time (shardSlice): together the shards hold every measured cell, each once.
    const measured = CELLS - SKIPPED;
    expect(measuredPerShard.reduce((a, b) => a + b, 0)).toBe(measured);
    const merged = await nightlyCommand(
      parseCommandLine(['nightly', 'merge', ...shards.map((s) => s.dir), `--results=${path.join(root, 'merged')}`]),
      new Shutdown(),
      () => {},
    );
    const m = read(path.join(root, 'merged'));
    const w = read(whole.dir);
    expect(m.cells.map(decided)).toEqual(w.cells.map(decided));
    expect(merged).toBe(whole.code);
    expect(merged).toBe(1);
    // Run folders point from the merged folder into each shard's.
    const plan = nightlyPlan([], 'all', TURN);
    const holder = [1, 2, 3].find((index) =>
      shardSlice(plan, { index, count: 3 }, 10).some(
        (c) => c.lock === 'redis' && c.fault === 'none' && c.oracle.decided === 'measured' && c.table === 'faults',
      ),
    );
    expect(cell(m, 'redis', 'none').runDir).toBe(`../shard${holder}/redis/none-p-100`);
    const strip = (xml: string) =>
      xml
        .replace(/ time="[^"]*"| timestamp="[^"]*"/g, '')
        .replace(/<property name="command"[^>]*>/, '')
        .replace(/report: [^"<]*/g, '');
    expect(strip(fs.readFileSync(path.join(root, 'merged', 'junit.xml'), 'utf8'))).toBe(
      strip(fs.readFileSync(path.join(whole.dir, 'junit.xml'), 'utf8')),
    );
  });

  it('refuses to merge shards of different nights, or an incomplete set', async () => {
    const a = await night([`--results=${path.join(root, 'x1')}`, '--shard=1/2']);
    const b = await night([`--results=${path.join(root, 'x2')}`, '--shard=2/2', '--seed=7']);
    const merge = (dirs: string[]) =>
      nightlyCommand(
        parseCommandLine(['nightly', 'merge', ...dirs, `--results=${path.join(root, 'xm')}`]),
        new Shutdown(),
        () => {},
      ).catch((e: Error) => e.message);
    expect(await merge([a.dir, b.dir])).toMatch(/ran with seed 7, .* with seed 100: not the same night/);
    expect(await merge([a.dir])).toBe('nightly merge: shard 2/2 missing (got 1 of 2).');
  });

  it("refuses the nightly job's options where they mean nothing, and a shard out of range (exit 254)", () => {
    const refused = (argv: string[]) => {
      try {
        parseCommandLine(argv);
      } catch (err) {
        return `${(err as { exitCode: number }).exitCode} ${(err as Error).message}`;
      }
      return 'accepted';
    };
    expect(refused(['nightly', '--shard=4/3'])).toBe('254 --shard must be <i>/<n> with 1 ≤ i ≤ n ≤ 64, got "4/3".');
    expect(refused(['nightly', '--shard=two'])).toContain('254 --shard must be <i>/<n>');
    expect(refused(['--lock=redis', '--baseline=/tmp/x'])).toBe('254 --baseline applies to the nightly subcommand.');
    expect(refused(['nightly', '--nemesis=clock'])).toContain(
      '254 --nemesis with nightly: the nightly job runs the whole matrix',
    );
    expect(parseCommandLine(['nightly', 'merge', 'a', 'b', '--results=out']).rest).toEqual(['merge', 'a', 'b']);
    expect(parseCommandLine(['nightly', '--shard=2/3']).shard).toEqual({ index: 2, count: 3 });
  });
});

describe("the night's matrix, built from the night's typed options", () => {
  it('is what parsing its argv gives: parse(render(config)) == config', () => {
    for (const argv of [[], ['--time-limit', '20', '--ttl=1500', '--watchdog', '--matrix=faults', '--parallel=1']]) {
      const { matrix } = nightMatrix(parseCommandLine(['nightly', '--seed=7', `--results=${root}/m`, ...argv]));
      expect(resolveConfig(matrix.argv)).toEqual(matrix);
    }
  });
});
