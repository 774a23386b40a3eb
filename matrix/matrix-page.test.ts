import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CellRun, MatrixCell } from './matrix-cell.ts';
import { renderMatrix, writeMatrix } from './matrix-page.ts';
import { tally, tallyLine } from './matrix-tally.ts';

const cell = (c: Partial<MatrixCell> & Pick<MatrixCell, 'lock' | 'fault' | 'expected' | 'observed'>): MatrixCell => ({
  fencing: false,
  runDir: `/r/${c.lock}/${c.fault}${c.fencing ? '-f' : ''}`,
  matched: c.expected === c.observed || c.expected === 'n/a',
  lostUpdates: c.observed === 'lost' ? 3 : 0,
  staleWritesRejected: 0,
  acquireP50: 0.5,
  acquireP99: 2,
  ...c,
});

const cells: MatrixCell[] = [
  cell({ lock: 'redis', fault: 'none', expected: 'safe', observed: 'safe' }),
  cell({ lock: 'redis', fault: 'pause-holder', expected: 'lost', observed: 'lost' }),
  cell({ lock: 'redis', fault: 'clock', expected: 'lost', observed: 'safe' }),
  cell({
    lock: 'redis',
    fault: 'pause-holder',
    fencing: true,
    expected: 'refuse',
    observed: 'refuse',
    runDir: '',
    note: 'no fencing token',
  }),
  cell({
    lock: 'etcd',
    fault: 'pause-holder',
    fencing: true,
    expected: 'safe',
    observed: 'safe',
    staleWritesRejected: 4,
  }),
  cell({ lock: 'etcd', fault: 'none', expected: 'safe', observed: 'safe', acquireP50: 3.2, acquireP99: 9.5 }),
  cell({ lock: 'postgres', fault: 'pause-holder', expected: 'safe', observed: 'lost' }),
];

describe('renderMatrix', () => {
  const html = renderMatrix(cells, { outDir: '/r/matrix' });

  it('says how many cells match the oracle and lists each contradiction with what to suspect', () => {
    expect(html).toContain('<h1>Lock matrix: 7 measured: 5 matched, 2 did not; 0 by construction, not run</h1>');
    expect(html).toContain('<header class="verdict bad">');
    expect(html).toContain(
      'redis under clock: expected lost, observed safe — an unsafe cell showed no anomaly: suspect the fault injection before the lock',
    );
    expect(html).toContain(
      'postgres under pause-holder: expected safe, observed lost 3 — a safe cell showed lost updates: suspect the harness before the lock',
    );
  });

  it('says why a fenced cell whose runs never refused a write is not a match: they were inconclusive', () => {
    const unexercised = cell({
      lock: 'zookeeper',
      fault: 'pause-holder',
      fencing: true,
      expected: 'safe',
      observed: 'unknown',
      matched: false,
      runs: [
        {
          seed: 5,
          runDir: '/r/zk/5',
          verdict: 'VALID',
          lostUpdates: 0,
          staleWritesRejected: 0,
          seen: 'safe',
          conclusive: false,
          why: 'no stale write was refused: the fence was not exercised',
        },
      ],
    });
    const page = renderMatrix([unexercised], { outDir: '/r/matrix' });
    expect(page).toContain(
      'zookeeper under pause-holder with --fencing: expected safe, observed unknown — no run could decide it (an unknown verdict, a fault that never hit, or a fence never exercised)',
    );
    expect(page).toContain(
      '<li class="inconclusive"><a href="../zk/5/report.html">seed 5: VALID · 0 lost · 0 stale rejected · hits not known</a> <span class="aside">(inconclusive: no stale write was refused: the fence was not exercised)</span></li>',
    );
  });

  it('shows what a lock costs by itself (one client) beside the contended latency, linked to its run', () => {
    const withSolo = renderMatrix(cells, {
      outDir: '/r/matrix',
      uncontended: {
        etcd: { acquireP50: 1.25, acquireP99: 4.5, writeP50: 0.8, writeP99: 2.1, runDir: '/r/etcd/solo' },
      },
    });
    expect(withSolo).toContain(
      '<a href="../etcd/solo/report.html" title="one client, no fault: write 0.80 ms / 2.10 ms">1.25 ms / 4.50 ms</a>',
    );
    expect(withSolo).toMatch(/contended: 3\.20 ms \/ 9\.50 ms/);
    expect(withSolo).toContain('fair queues (etcd, ZooKeeper)');
    expect(html).not.toContain('contended:');
  });

  it('links each cell to the report that proves it, relative to the page', () => {
    expect(html).toContain('<a href="../redis/pause-holder/report.html">');
    expect(html).toContain('<td class="cell safe contradicts"><a href="../redis/clock/report.html">');
  });

  it('fills the "choosing a lock" table from the measurements', () => {
    const redis = html.slice(html.indexOf('<tr><td><b>redis</b>'), html.indexOf('<tr><td><b>etcd</b>'));
    expect(redis).toContain(
      '<b class="obs lost">broken</b> under <a href="../redis/pause-holder/report.html">pause-holder (3 lost)</a>',
    );
    expect(redis).toContain('no: refused (no fencing token)');
    expect(redis).toContain('0.50 ms / 2.00 ms');
    const etcd = html.slice(html.indexOf('<tr><td><b>etcd</b>'), html.indexOf('<tr><td><b>postgres</b>'));
    expect(etcd).toContain('<b class="obs safe">yes, honoured</b>');
    expect(etcd).toContain('4 stale writes rejected');
    expect(etcd).toContain('3.20 ms / 9.50 ms');
  });

  it('orders rows as BUILTIN_LOCKS does and columns no-fault first, fenced last', () => {
    expect(html.indexOf('<b>redis</b>')).toBeLessThan(html.indexOf('<b>etcd</b>'));
    expect(html.indexOf('<b>etcd</b>')).toBeLessThan(html.indexOf('<b>postgres</b>'));
    const head = html.slice(
      html.indexOf('<table class="matrix">'),
      html.indexOf('</thead>', html.indexOf('<table class="matrix">')),
    );
    expect([...head.matchAll(/<th>([^<]+)<\/th>/g)].map((m) => m[1])).toEqual([
      'no fault',
      'pause-holder',
      'clock',
      'pause-holder + --fencing',
    ]);
  });
});

describe('measured cells and cells decided by construction', () => {
  const runs: CellRun[] = [
    {
      seed: 10,
      runDir: '/r/redis/10',
      verdict: 'UNKNOWN',
      lostUpdates: 0,
      staleWritesRejected: 0,
      faultHits: 0,
      seen: 'unknown',
      conclusive: false,
      why: 'pause-holder never hit',
    },
    {
      seed: 11,
      runDir: '/r/redis/11',
      verdict: 'INVALID',
      lostUpdates: 6,
      staleWritesRejected: 0,
      faultHits: 2,
      seen: 'lost',
      conclusive: true,
    },
  ];
  const mixed: MatrixCell[] = [
    cell({
      lock: 'none',
      fault: 'none',
      expected: 'lost',
      observed: 'lost',
      decided: 'measured',
      runs: [
        {
          seed: 10,
          runDir: '/r/none/10',
          verdict: 'INVALID',
          lostUpdates: 9,
          staleWritesRejected: 0,
          seen: 'lost',
          conclusive: true,
        },
      ],
    }),
    cell({
      lock: 'none',
      fault: 'restart-empty',
      expected: 'lost',
      observed: 'not run',
      matched: true,
      decided: 'construction',
      runDir: '',
      note: 'no lock: there is nothing for the fault to break',
    }),
    cell({
      lock: 'redis',
      fault: 'pause-holder',
      expected: 'lost',
      observed: 'lost',
      decided: 'measured',
      runDir: '/r/redis/11',
      lostUpdates: 6,
      runs,
      note: '1 of 2 runs inconclusive, replaced',
    }),
    cell({
      lock: 'redis',
      fault: 'pause-holder',
      fencing: true,
      expected: 'refuse',
      observed: 'refuse',
      matched: true,
      decided: 'construction',
      runDir: '',
      note: 'refused: --fencing with --lock=redis: no token',
    }),
    cell({
      lock: 'redlock',
      fault: 'pause-holder',
      fencing: true,
      expected: 'refuse',
      observed: 'accepted',
      matched: false,
      decided: 'construction',
      runDir: '',
      note: 'the CLI accepted this combination',
    }),
    cell({
      lock: 'etcd',
      fault: 'none',
      expected: 'safe',
      observed: 'failed',
      matched: false,
      decided: 'measured',
      runDir: '',
      note: 'the harness failed: etcd node n2 not ready after 10 s',
      runs: [
        {
          seed: 10,
          runDir: '',
          verdict: 'FAILED',
          lostUpdates: 0,
          staleWritesRejected: 0,
          seen: 'failed',
          conclusive: false,
          why: 'etcd node n2 not ready after 10 s',
        },
      ],
    }),
  ];
  const page = renderMatrix(mixed, { outDir: '/r/matrix', runsPerCell: 1 });

  it('counts measured cells apart from those decided by construction, in the headline', () => {
    expect(tallyLine(tally(mixed))).toBe(
      '3 measured: 2 matched, 1 did not (1 failed); 3 by construction, not run (1 of 2 refusals confirmed by the CLI)',
    );
    expect(page).toContain(`<h1>Lock matrix: ${tallyLine(tally(mixed))}</h1>`);
    expect(page).toContain('<header class="verdict bad">');
  });

  it('draws cells decided by construction apart, with why, and says whether the CLI refused', () => {
    expect(page).toContain(
      '<td class="cell construction" title="decided by construction, not run"><div class="obs">by construction</div><div class="exp">expected lost</div><div class="exp">no lock: there is nothing for the fault to break</div></td>',
    );
    expect(page).toContain(
      '<span class="mark ok" title="the CLI refused it, as the oracle says">✓</span><div class="obs">by construction</div><div class="exp">refused by the CLI</div>',
    );
    expect(page).toContain('<td class="cell construction contradicts"');
    expect(page).toContain(
      'redlock under pause-holder with --fencing: expected refuse, observed accepted by the CLI — the CLI should have refused this combination with an explanation',
    );
  });

  it("lists every run of a measured cell: seed, verdict, lost updates and the fault's hits when known", () => {
    expect(page).toContain(
      '<li class="inconclusive"><a href="../redis/10/report.html">seed 10: UNKNOWN · 0 lost · hit 0×</a> <span class="aside">(inconclusive: pause-holder never hit)</span></li>',
    );
    expect(page).toContain('<li><a href="../redis/11/report.html">seed 11: INVALID · 6 lost · hit 2×</a></li>');
    // No fault, no hits to count.
    expect(page).toContain('<li><a href="../none/10/report.html">seed 10: INVALID · 9 lost</a></li>');
  });

  it('shows availability beside safety: per cell the recovery (median, max) and the longest stall, per run too', () => {
    const live = { recoveryMedianMs: 1200, recoveryMaxMs: 7400, unrecovered: 0, longestStallMs: 3100 };
    const out = renderMatrix(
      [
        cell({
          lock: 'etcd',
          fault: 'pause-node',
          expected: 'safe',
          observed: 'safe',
          liveness: { ...live, runs: 1 },
          runs: [
            {
              seed: 7,
              runDir: '/r/etcd/7',
              verdict: 'VALID',
              lostUpdates: 0,
              staleWritesRejected: 0,
              seen: 'safe',
              conclusive: true,
              liveness: live,
            },
          ],
        }),
      ],
      { outDir: '/r/matrix' },
    );
    expect(out).toContain(
      '<div class="exp live">unavailable up to 7.4 s after each fault (median 1.2 s); longest stall 3.1 s</div>',
    );
    expect(out).toContain('seed 7: VALID · 0 lost · hits not known · unavailable up to 7.4 s after each fault');
  });

  it('shows "broke its promise" beside lost: per lock, per cell and per run; not measured for older runs', () => {
    const run = (seed: number, broken: number) => ({
      seed,
      runDir: `/r/redis/${seed}`,
      verdict: 'INVALID' as const,
      lostUpdates: 2,
      staleWritesRejected: 0,
      seen: 'lost' as const,
      conclusive: true,
      promise: { broken, outlived: 1, unknown: 0, known: true },
    });
    const out = renderMatrix(
      [
        cell({
          lock: 'redis',
          fault: 'clock',
          expected: 'lost',
          observed: 'lost',
          promise: { broken: 3, outlived: 2, unknown: 0, known: true, runs: 2 },
          runs: [run(7, 3), run(8, 0)],
        }),
        cell({ lock: 'redis', fault: 'none', expected: 'safe', observed: 'safe' }),
        cell({
          lock: 'postgres',
          fault: 'none',
          expected: 'safe',
          observed: 'safe',
          promise: { broken: 0, outlived: 0, unknown: 0, known: false, why: 'no lease', runs: 1 },
        }),
        cell({ lock: 'etcd', fault: 'none', expected: 'safe', observed: 'safe' }),
      ],
      { outDir: '/r/matrix' },
    );
    expect(out).toContain('<th class="num">lost updates</th><th class="num" title="overlaps the lock caused');
    expect(out).toContain(
      '<td class="num"><b class="obs lost">3</b><div class="aside"><a href="../redis/clock/report.html">3 under clock</a></div></td>',
    );
    expect(out).toContain('<td class="num"><span class="aside">unknown: no lease</span></td>');
    expect(out).toContain('<td class="num"><span class="aside">not measured</span></td>');
    expect(out).toContain('<div class="exp">broke its promise: 3 broken</div>');
    expect(out).toContain('seed 7: INVALID · 2 lost · promise 3 broken · hits not known');
  });

  it('states the runs rule and how many runs had no hit count', () => {
    expect(page).toContain('Every measured cell gets 1 conclusive run; a run that cannot decide its cell');
    expect(page).toContain('at most 2 more), whichever way the oracle leans');
    expect(page).not.toContain('Fault hits: not known');
    const unknownHits = renderMatrix(
      [
        cell({
          lock: 'etcd',
          fault: 'pause-holder',
          expected: 'lost',
          observed: 'lost',
          runs: [{ ...runs[1], faultHits: undefined }],
        }),
      ],
      { outDir: '/r/matrix' },
    );
    expect(unknownHits).toContain('Fault hits: not known for 1 run (results.json carried no hit count)');
    expect(unknownHits).toContain('seed 11: INVALID · 6 lost · hits not known');
  });

  it('reports a failed cell as a contradiction, with the error', () => {
    expect(page).toContain(
      'etcd under no fault: expected safe, observed harness failed — the harness threw (its servers were stopped and the matrix went on)',
    );
    expect(page).toContain('seed 10: FAILED · 0 lost');
  });

  it('counts the oracle column per lock without the cells decided by construction', () => {
    const redis = page.slice(page.indexOf('<tr><td><b>redis</b>'), page.indexOf('<tr><td><b>redlock</b>'));
    expect(redis).toContain('<span class="obs safe">1/1 ✓</span><div class="aside">+1 by construction</div>');
  });
});

describe('writeMatrix', () => {
  it('writes matrix.html and matrix.json into the folder', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-matrix-')), 'm');
    const file = writeMatrix(dir, cells);
    expect(file).toBe(path.join(dir, 'matrix.html'));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'matrix.json'), 'utf8'))).toEqual(cells);
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });
});

describe('the failure-mode and remedy table', () => {
  const r = (
    c: Partial<MatrixCell> & Pick<MatrixCell, 'lock' | 'fault' | 'expected' | 'observed' | 'columnId'>,
  ): MatrixCell => cell({ table: 'remedies', decided: 'measured', runDir: `/r/${c.lock}/${c.columnId}`, ...c });
  const cells: MatrixCell[] = [
    cell({
      lock: 'redis',
      fault: 'pause-holder',
      expected: 'lost',
      observed: 'lost',
      table: 'faults',
      columnId: 'pause-holder',
      column: 'holder paused > TTL',
      lostUpdates: 5,
    }),
    r({
      lock: 'redis',
      fault: 'none',
      columnId: 'long-work',
      column: 'long work > TTL',
      expected: 'lost',
      observed: 'lost',
      lostUpdates: 14,
    }),
    r({
      lock: 'redis',
      fault: 'none',
      columnId: 'long-work-watchdog',
      column: 'long work > TTL, --watchdog',
      expected: 'safe',
      observed: 'safe',
    }),
    r({
      lock: 'redis',
      fault: 'pause-holder',
      columnId: 'pause-watchdog',
      column: 'holder paused > TTL, --watchdog',
      expected: 'lost',
      observed: 'lost',
      lostUpdates: 4,
    }),
    r({
      lock: 'etcd',
      fault: 'none',
      columnId: 'long-work',
      column: 'long work > TTL',
      expected: 'safe',
      observed: 'safe',
    }),
    r({
      lock: 'etcd',
      fault: 'none',
      columnId: 'long-work-watchdog',
      column: 'long work > TTL, --watchdog',
      expected: 'refuse',
      observed: 'refuse',
      matched: true,
      decided: 'construction',
      runDir: '',
      note: 'refused: --watchdog applies to --lock=redis|redlock',
    }),
    r({
      lock: 'etcd',
      fault: 'delay-write',
      columnId: 'delay-write',
      column: 'delayed write',
      expected: 'lost',
      observed: 'lost',
      lostUpdates: 2,
    }),
    r({
      lock: 'etcd',
      fault: 'delay-write',
      fencing: true,
      columnId: 'delay-write-fenced',
      column: 'delayed write, --fencing',
      expected: 'safe',
      observed: 'safe',
      staleWritesRejected: 3,
    }),
    r({
      lock: 'redis',
      fault: 'delay-write',
      columnId: 'delay-write',
      column: 'delayed write',
      expected: 'lost',
      observed: 'lost',
      lostUpdates: 6,
    }),
    r({
      lock: 'redis',
      fault: 'delay-write',
      fencing: true,
      columnId: 'delay-write-fenced',
      column: 'delayed write, --fencing',
      expected: 'refuse',
      observed: 'refuse',
      matched: true,
      decided: 'construction',
      runDir: '',
    }),
  ];
  const page = renderMatrix(cells, { outDir: '/r/matrix' });
  const answers = page.slice(
    page.indexOf('<h2>Which remedy fixes which failure'),
    page.indexOf('</table>', page.indexOf('<h2>Which remedy fixes which failure')),
  );
  const row = (failure: string, remedy: string) =>
    answers.split('<tr>').find((t) => t.includes(`<b>${failure}</b>`) && t.includes(remedy)) ?? '';

  it('answers, per failure mode, which lock broke, the remedy, and whether it held, with links to the runs', () => {
    const long = row('long work &gt; TTL', '--watchdog');
    expect(long).toContain('<a href="../redis/long-work/report.html">redis (14 lost)</a>');
    expect(long).toContain('redis: <a href="../redis/long-work-watchdog/report.html">held</a> <span class="mark ok"');
    // etcd did not break under long work, so it is not offered a remedy.
    expect(long).not.toContain('etcd');
    const paused = row('holder paused &gt; TTL', '--watchdog');
    expect(paused).toContain('<a href="../redis/pause-holder/report.html">redis (5 lost)</a>');
    expect(paused).toContain(
      'redis: <a href="../redis/pause-watchdog/report.html">did not hold: 4 lost</a> <span class="mark ok"',
    );
    expect(paused).toContain('does not hold: a stopped process cannot renew');
    const delayed = row('delayed write', '--fencing');
    expect(delayed).toContain(
      'etcd: <a href="../etcd/delay-write-fenced/report.html">held (3 stale writes rejected)</a>',
    );
    expect(delayed).toContain('redis: cannot apply — refused by the CLI');
  });

  it('says when the table a failure breaks in was not run', () => {
    expect(row('Redis restart without persistence', 'aof-always')).toContain(
      'not run in this matrix (the fault table was not run: --matrix=remedies)',
    );
  });

  it("draws the remedy cells in their own grid, apart from the fault table, in the oracle's column order", () => {
    const grid = page.slice(page.indexOf('<h2>Failure modes and remedies, every cell'));
    const head = grid.slice(0, grid.indexOf('</thead>'));
    expect([...head.matchAll(/<th>([^<]+)<\/th>/g)].map((m) => m[1])).toEqual([
      'long work &gt; TTL',
      'long work &gt; TTL, --watchdog',
      'holder paused &gt; TTL, --watchdog',
      'delayed write',
      'delayed write, --fencing',
    ]);
    const faultGrid = page.slice(
      page.indexOf('<h2>Every cell'),
      page.indexOf('<h2>Failure modes and remedies, every cell'),
    );
    expect(faultGrid).not.toContain('long-work');
    expect(page).toContain(
      '<h1>Lock matrix: 8 measured: 8 matched; 2 by construction, not run (2 of 2 refusals confirmed by the CLI)</h1>',
    );
  });

  it('names a contradicting remedy cell by its scenario', () => {
    const bad = renderMatrix(
      [
        r({
          lock: 'redis',
          fault: 'none',
          columnId: 'long-work-watchdog',
          column: 'long work > TTL, --watchdog',
          expected: 'safe',
          observed: 'lost',
          matched: false,
        }),
      ],
      { outDir: '/r/matrix' },
    );
    expect(bad).toContain(
      'redis under long work &gt; TTL, --watchdog: expected safe, observed lost 3 — a safe cell showed lost updates',
    );
  });
});
