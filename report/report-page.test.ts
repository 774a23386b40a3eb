import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRun } from '../checkers/check-run.ts';
import { generateBankHistory, simulateBankRun } from '../test/support/memory-bank.ts';
import type { Op } from '../history/op.ts';
import { clockData } from './chart-data.ts';
import { faultsToDraw } from './faults-to-draw.ts';
import { PAUSED_HOLDER_TEST, pausedHolderHistory } from '../test/support/paused-holder-history.ts';
import { RunIndex } from './op-pairs.ts';
import { acquire, acquireReplyLost, ordered, release } from '../test/support/lost-reply-history.ts';
import { renderReport, writeReport } from './report.ts';
import { normalizeTestJson } from '../store/test-json.ts';
import { timelineData, type TimelineData } from './timeline-data.ts';

const PWN = '<script>window.__pwned=1</script>';

function dataOf(html: string): { timeline: TimelineData; faultColours: Record<string, string> } {
  const m = /<script type="application\/json" id="fp-data">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m![1]);
}

function literalReport(opts: { fenced: boolean; note?: string; error?: string }) {
  const history = pausedHolderHistory(opts);
  const results = checkRun(history, { fencing: opts.fenced });
  return renderReport({ history, results, test: normalizeTestJson(PAUSED_HOLDER_TEST), runDir: 'results/redis/x' });
}

describe('renderReport: the first screen', () => {
  const html = literalReport({ fenced: false });

  it('opens with the verdict, the config and the exact command to replay it', () => {
    expect(html).toContain('<header class="verdict bad"><div class="badge">INVALID</div>');
    expect(html).toContain('redis under pause-holder: 1 lost update, 1 confirmed lock overlap, not linearizable');
    expect(html).toContain('npm run jepsen -- --lock=redis --nemesis=pause-holder --ttl=2000 --seed=1234');
    expect(html).toMatch(/<b>TTL<\/b>2,000 ms/);
  });

  it('names the lost update and the paused holder, then the timeline, then each finding in full', () => {
    const findings = html.indexOf('id="findings"');
    const timeline = html.indexOf('id="timeline"');
    const cards = html.indexOf('id="finding-cards"');
    expect(findings).toBeGreaterThan(0);
    // The timeline was 3¼ screens down, below every card: now it follows the one-line list.
    expect(findings).toBeLessThan(timeline);
    expect(timeline).toBeLessThan(cards);
    const first = html.slice(findings, timeline);
    expect(first).toContain('Lost update on account 0: p1&#39;s write #1 (+50) erased by p0&#39;s write #2');
    expect(first).toContain('p0 paused for 3,000 ms at 0.005 s while holding the lock on account 0 (pause-holder)');
    const full = html.slice(cards);
    expect(full).toContain(
      'p0 was paused for 3,000 ms (pause-holder, 0.005 s → 3.005 s) while holding the lock on account 0 (token 1), longer than the 2,000 ms TTL.',
    );
    // each anomaly links to its place on the timeline; a lost update names its writes' roles there
    expect(full).toMatch(
      /<a class="goto" href="#timeline" data-from="[\d.]+" data-to="[\d.]+" data-ops="[\d,]+" data-roles="\d+:overwrote:2,\d+:erased:1">/,
    );
  });

  it("says in its header which fault the lost updates happened under, and spells checkers that don't apply n/a", () => {
    expect(html).toMatch(
      /<div class="attribution">lost updates by the fault active: <span class="chip"><i style="background:#d946ef"><\/i>pause-holder <b>1<\/b><\/span><\/div>/,
    );
    expect(html).toMatch(/<td>fencing-order<\/td><td><span class="v neutral">n\/a<\/span>/);
    expect(html).toMatch(
      /<td>mutex-linearizable<\/td><td><span class="v neutral">INVALID<\/span> <span class="aside">informational/,
    );
  });

  it("says under the verdict what to do, linking the lock's story and how to read the report", () => {
    const next = /<p class="next-step" id="next-step">(.*?)<\/p>/.exec(html)?.[1] ?? '';
    expect(next).toMatch(/^<b>What to do:<\/b> fence the write: redis has no fencing token, so no setting of it stops/);
    expect(next).toContain(
      '<a href="https://github.com/fencepost/fencepost/blob/main/docs/locks.md">redis&#39;s story</a>',
    );
    expect(next).toContain(
      'href="https://github.com/fencepost/fencepost/blob/main/docs/reading-results.md">how to read this report</a>',
    );
    expect(next).toContain('(etcd or ZooKeeper with <code>--fencing</code>)');
    // In the header, before anything else on the page.
    expect(html.indexOf('id="next-step"')).toBeLessThan(html.indexOf('</header>'));
  });

  it('draws the counterexample of the linearizability checker', () => {
    expect(html).toContain('id="counterexample"');
    expect(html).toContain('cannot be linearized');
    expect(html).toContain('<svg class="cx"');
  });

  it('is green with the fence holding', () => {
    const fenced = literalReport({ fenced: true });
    expect(fenced).toContain('<header class="verdict good"><div class="badge">VALID</div>');
    expect(fenced).toContain('rejected as stale (stale-token) at 3.008 s: the fence held.');
    // the lock service from the clients' view is still not a mutex: shown folded, marked as not deciding
    expect(fenced).toMatch(/<details><summary>mutex-linearizable found no linearization either — informational/);
    expect(fenced).not.toMatch(/<h3>linearizable/);
  });
});

describe('renderReport: history strings are data, never markup', () => {
  const html = literalReport({ fenced: false, note: `note ${PWN}`, error: `boom ${PWN}` });

  it('escapes them in text and in the inline JSON', () => {
    expect(html).not.toContain(PWN);
    expect(html).toContain('boom &lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(html).toContain('note &lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(html).toContain('\\u003cscript\\u003ewindow.__pwned=1\\u003c/script\\u003e');
  });

  it('gets them back intact from the JSON block', () => {
    const t = dataOf(html).timeline;
    expect(t.faults[0].note).toBe(`note ${PWN}`);
    expect(Object.values(t.detail).some(([, completion]) => completion?.includes(`boom ${PWN}`))).toBe(true);
  });

  it('inlines everything: no external script, stylesheet or font', () => {
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+stylesheet/);
    expect(html).toContain('uPlot');
  });
});

describe('renderReport: big histories', () => {
  it('draws every pair of a 10k-pair history with one-line summaries and stays under 1 MB', async () => {
    const run = await simulateBankRun({ pause: { atMs: 8000, durationMs: 3000 }, durationMs: 44_000, thinkMs: 10 });
    const html = renderReport({ history: run.history, results: run.results, test: normalizeTestJson(run.test) });
    const t = dataOf(html).timeline;
    expect(t.totalPairs).toBeGreaterThan(10_000);
    expect(t.mode).toBe('summaries');
    expect(t.shownPairs).toBe(t.totalPairs);
    expect(html).toContain(`All ${t.totalPairs.toLocaleString('en-US')} op pairs are drawn`);
    expect(html.length).toBeLessThan(1_000_000);
  });

  it('keeps only the stretches around faults and findings past 60k pairs, and says so', () => {
    const history: Op[] = [];
    const push = (ms: number, process: Op['process'], type: Op['type'], f: string, value: unknown) =>
      history.push({ index: history.length, time: Math.round(ms * 1e6), process, type, f, value });
    for (let k = 0; k < 61_000; k++) {
      const t = k * 2;
      push(t, k % 4, 'invoke', 'read', { account: 0 });
      push(t + 1, k % 4, 'ok', 'read', { account: 0, balance: 1, version: 0, lastWriteId: 0 });
    }
    push(50_000, 'nemesis', 'info', 'pause-client', { phase: 'start', targets: ['client p1 (pid 9)'] });
    push(51_000, 'nemesis', 'info', 'pause-client', { phase: 'end', targets: ['client p1 (pid 9)'] });
    history.sort((a, b) => a.time - b.time).forEach((o, i) => (o.index = i));
    const index = new RunIndex(history);
    const t = timelineData(index, faultsToDraw(history), []);
    expect(t.mode).toBe('windowed');
    expect(t.windows).toEqual([[48_000, 53_000]]);
    expect(t.shownPairs).toBeGreaterThan(2000);
    expect(t.shownPairs).toBeLessThan(3000);
  });
});

describe('timelineData: lanes', () => {
  // Two clients (concurrency 2): client 0 is p0, then p2 after an unknown outcome; client 1 is p1, with a watchdog.
  const history: Op[] = [];
  const push = (ms: number, process: Op['process'], type: Op['type'], f: string, value: unknown, error?: string) =>
    history.push({ index: history.length, time: ms * 1e6, process, type, f, value, ...(error ? { error } : {}) });
  push(0, 0, 'invoke', 'acquire', { account: 0 });
  push(1, 1, 'invoke', 'acquire', { account: 0 });
  push(2, 0, 'ok', 'acquire', { account: 0, token: 1 });
  push(3, 0, 'invoke', 'write', { account: 0, from: 0, to: 1 });
  push(500, 0, 'info', 'write', { account: 0, from: 0, to: 1 }, 'timeout');
  push(501, 2, 'invoke', 'acquire', { account: 0 });
  push(600, 1, 'ok', 'acquire', { account: 0, token: 2 });
  push(601, 100_001, 'invoke', 'renew', { account: 0 });
  push(602, 100_001, 'ok', 'renew', { account: 0 });
  push(700, 2, 'fail', 'acquire', { account: 0 }, 'timeout');
  const index = new RunIndex(history);

  it('draws one lane per client slot, each bar and hold naming its process id', () => {
    const t = timelineData(index, [], [], { concurrency: 2 });
    expect(t.lanes).toEqual(['client 0', 'client 1', 'watchdog 1']);
    expect(t.procs).toEqual(['p0', 'p1', 'p2', 'p1·wd']);
    // Bars in start order: p0 acquire, p1 acquire, p0 write, p2 acquire, renew.
    expect(t.l).toEqual([0, 1, 0, 0, 2]);
    expect(t.p.map((k) => t.procs[k])).toEqual(['p0', 'p1', 'p0', 'p2', 'p1·wd']);
    expect(t.holds.l).toEqual([0, 1]);
    expect(t.holds.p.map((k) => t.procs[k])).toEqual(['p0', 'p1']);
  });

  it('falls back to one lane per process id when the concurrency is unknown', () => {
    const t = timelineData(index, [], []);
    expect(t.lanes).toEqual(['p0', 'p1', 'p2', 'p1·wd']);
    expect(t.l).toEqual([0, 1, 0, 2, 3]);
  });
});

const { history: anomalous } = await generateBankHistory({ ops: 4000, processes: 6, brokenLockRate: 0.5, seed: 3 });

describe('renderReport: a run with hundreds of anomalies', () => {
  const history = anomalous;
  const results = checkRun(history, { fencing: false, deadlineMs: 5000 });
  const html = renderReport({ history, results, test: normalizeTestJson({ lock: 'broken', seed: 3, config: {} }) });
  const summary = /<ul class="summary">([\s\S]*?)<\/ul>/.exec(html)![1];

  it('keeps the first screen to one bullet per kind, with the real counts', () => {
    expect(results.lostUpdates).toBeGreaterThan(100);
    const bullets = summary.split('<li').slice(1);
    expect(bullets.length).toBeLessThanOrEqual(6);
    expect(bullets[0]).toContain(`${results.lostUpdates} lost updates erased by`);
    expect(bullets[1]).toContain(`${results.confirmedOverlaps} confirmed overlaps with`);
  });

  it('shows a dozen cards, a capped one-line table, and says where the rest are', () => {
    expect(html.split('<article class="finding').length - 1).toBe(12);
    expect(html).toMatch(/more, not shown here: results\.json lists every anomaly\./);
  });
});

describe('clock offsets', () => {
  it('steps each target to the offset its fault recorded and back', () => {
    const ops: Op[] = [
      {
        index: 0,
        time: 1e9,
        process: 'nemesis',
        type: 'info',
        f: 'clock',
        value: {
          phase: 'start',
          targets: ['redis[0]', 'redis[1]'],
          params: { offsetMs: 60_000, offsets: { 'redis[0]': 60_000, 'redis[1]': 30_000 } },
        },
      },
      {
        index: 1,
        time: 3e9,
        process: 'nemesis',
        type: 'info',
        f: 'clock',
        value: {
          phase: 'end',
          targets: ['redis[0]', 'redis[1]'],
          params: { offsets: { 'redis[0]': 0, 'redis[1]': 0 } },
        },
      },
    ];
    const c = clockData(faultsToDraw(ops), 5000)!;
    expect(c.x).toEqual([0, 1, 3, 5]);
    expect(c.series).toEqual([
      { label: 'redis[0] (ms)', values: [0, 60_000, 0, 0] },
      { label: 'redis[1] (ms)', values: [0, 30_000, 0, 0] },
    ]);
    expect(clockData([], 5000)).toBeNull();
  });
});

describe('renderReport: fault colours', () => {
  it("gives the page each of the run's faults' catalogue colour, and an unknown name the unknown grey", () => {
    const history = pausedHolderHistory({ fenced: false });
    expect(dataOf(literalReport({ fenced: false })).faultColours).toEqual({ 'pause-holder': '#d946ef' });
    const renamed = history.map((o) => (o.process === 'nemesis' ? { ...o, f: 'pause-from-the-future' } : o));
    const results = checkRun(renamed, { fencing: false });
    const html = renderReport({ history: renamed, results, test: normalizeTestJson(PAUSED_HOLDER_TEST) });
    expect(dataOf(html).faultColours).toEqual({ 'pause-from-the-future': '#6b7280' });
  });
});

describe('writeReport', () => {
  it('writes report.html from a run dir, and still does when results.json is missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-report-'));
    const history = pausedHolderHistory({ fenced: false });
    fs.writeFileSync(path.join(dir, 'history.jsonl'), `${history.map((o) => JSON.stringify(o)).join('\n')}\n{"index":`);
    fs.writeFileSync(path.join(dir, 'test.json'), JSON.stringify(PAUSED_HOLDER_TEST));
    const file = writeReport(dir);
    const html = fs.readFileSync(file, 'utf8');
    expect(file).toBe(path.join(dir, 'report.html'));
    expect(html).toContain('<div class="badge">UNKNOWN</div>');
    expect(html).toContain('Problem reading the run: results.json is missing.');
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(checkRun(history, { fencing: false })));
    expect(fs.readFileSync(writeReport(dir), 'utf8')).toContain('<div class="badge">INVALID</div>');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('renderReport: targeted faults that never hit', () => {
  // The fixture's pause-holder start carries no aim (where it landed), so the run's own fault list makes it unknown.
  const history = pausedHolderHistory({ fenced: true });
  const results = checkRun(history, { fencing: true, faults: ['pause-holder'] });
  const html = renderReport({
    history,
    results,
    test: normalizeTestJson(PAUSED_HOLDER_TEST),
    runDir: 'results/etcd/x',
  });

  it('says why in the banner and shows fired/hit with each shot in the faults section', () => {
    expect(results.valid).toBe('unknown');
    expect(html).toContain('<header class="verdict unknown"><div class="badge">UNKNOWN</div>');
    expect(html).toContain('undecided: pause-holder fired 1 time but its story never completed (the furthest shot, #');
    expect(html).toMatch(
      /<tr class="row-bad"><td>pause-holder<\/td><td>1<\/td><td>0<\/td><td><ul><li class="bad">#\d+ miss — no whole story: stopped is missing<ol class="story"><li class="step-missing" title="missing"><span class="mark">✗<\/span> <b>stopped<\/b> the holder was stopped inside its critical section \(after its read, before its write\)<br><small>no aim recorded/,
    );
    // Every step of the story is listed, the unreached ones too, and what the story cannot show.
    expect(html).toContain(
      '<li class="step-not-reached" title="not-reached"><span class="mark">·</span> <b>holder-wrote</b>',
    );
    expect(html).toContain('What this story cannot show: a lock whose lease never runs out');
  });
});

describe('renderReport: a lock in another language', () => {
  it('shows which build of it ran (its fingerprint, manifest, files and packages), escaped', () => {
    const history = pausedHolderHistory({ fenced: false });
    const results = checkRun(history, { fencing: false });
    const test = normalizeTestJson({
      ...PAUSED_HOLDER_TEST,
      foreignLock: {
        fingerprint: '0123456789ab',
        manifest: { path: '/repo/locks/kazoo.json', sha256: 'ab'.repeat(32), content: {} },
        command: ['/usr/bin/python3', 'kazoo_lock.py'],
        cwd: '/repo/locks/python',
        files: [
          { arg: 'kazoo_lock.py', path: '/repo/locks/python/kazoo_lock.py<x>', bytes: 10, sha256: 'cd'.repeat(32) },
        ],
        packages: { 'python3-kazoo': '2.8.0-3' },
      },
    });
    const html = renderReport({ history, results, test, runDir: 'results/kazoo/x' });
    expect(html).toContain(
      '<div class="versions" id="lock-build"><b>lock build</b>0123456789ab: manifest /repo/locks/kazoo.json (sha256 abababababab), /repo/locks/python/kazoo_lock.py&lt;x&gt; (sha256 cdcdcdcdcdcd), python3-kazoo 2.8.0-3</div>',
    );
    expect(literalReport({ fenced: false })).not.toContain('lock build');
  });
});

describe("renderReport: the lock's promise", () => {
  const history = pausedHolderHistory({ fenced: false });
  const results = checkRun(history, {
    fencing: false,
    promise: { ttlMs: 2000, lease: { kind: 'ttl-from-request' } },
  });
  const html = renderReport({
    history,
    results,
    test: normalizeTestJson(PAUSED_HOLDER_TEST),
    runDir: 'results/redis/x',
  });

  it("draws both holds' promise windows on their lanes, keyed by class, and tells the overlap in the findings", () => {
    const { timeline } = dataOf(html);
    expect(timeline.promises.map((p) => [timeline.lanes[p.l], p.c, p.label])).toEqual([
      ['client 0', 1, "p0's promise — outlived its lease (overlapped p1)"],
      ['client 1', 1, "p1's promise — outlived its lease (overlapped p0)"],
    ]);
    expect(html).toContain('promise: outlived its lease</span>');
    expect(html).toMatch(
      /<p>outlived its lease — p0 \(held 0\.001 s → [^)]*\) and p1 \([^)]*\), account 0; late: p0; cause: pause-holder\.<\/p>/,
    );
  });
});

describe('renderReport: what lost replies broke, in the liveness card', () => {
  it("gives the orphaned lock's span against the TTL in the card's title and sentences", () => {
    const history = ordered(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 1950),
      release(2, 2_000, 2_010),
    );
    const results = checkRun(history, { fencing: false, liveness: { ttlMs: 2000 } });
    const html = renderReport({
      history,
      results,
      test: normalizeTestJson(PAUSED_HOLDER_TEST),
      runDir: 'results/redis/x',
    });
    const card = /<article class="finding note" id="liveness">[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    expect(card).toMatch(/<h3>Liveness: [^<]*; orphaned lock up to 1\.9 s/);
    expect(card).toContain(
      '<p>Orphaned lock on account 0 for 1.9 s, TTL 2.0 s: p1&#39;s acquire #1 was granted (its key on the server) but its reply was lost (reply-loss-acquire #0) and it ended info; the server kept it until p2 was granted — within the TTL plus p1&#39;s retry budget (500 ms): a lease&#39;s expected cost.</p>',
    );
  });
});
