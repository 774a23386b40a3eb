import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixCell } from './matrix-cell.ts';
import { renderMatrix, writeMatrix } from './matrix-page.ts';

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
  cell({ lock: 'redis', fault: 'pause-holder', fencing: true, expected: 'refuse', observed: 'refuse', runDir: '', note: 'no fencing token' }),
  cell({ lock: 'etcd', fault: 'pause-holder', fencing: true, expected: 'safe', observed: 'safe', staleWritesRejected: 4 }),
  cell({ lock: 'etcd', fault: 'none', expected: 'safe', observed: 'safe', acquireP50: 3.2, acquireP99: 9.5 }),
  cell({ lock: 'postgres', fault: 'pause-holder', expected: 'safe', observed: 'lost' }),
];

describe('renderMatrix', () => {
  const html = renderMatrix(cells, { outDir: '/r/matrix' });

  it('says how many cells match the oracle and lists each contradiction with what to suspect', () => {
    expect(html).toContain('<h1>Lock matrix: 5 of 7 cells match the oracle</h1>');
    expect(html).toContain('<header class="verdict bad">');
    expect(html).toContain('redis under clock: expected lost, observed safe — an unsafe cell showed no anomaly: suspect the fault injection before the lock');
    expect(html).toContain('postgres under pause-holder: expected safe, observed lost 3 — a safe cell showed lost updates: suspect the harness before the lock');
  });

  it('says why a fenced "safe" that never refused a write is not a match', () => {
    const unexercised = cell({ lock: 'zookeeper', fault: 'pause-holder', fencing: true, expected: 'safe', observed: 'safe', matched: false, staleWritesRejected: 0 });
    const page = renderMatrix([unexercised], { outDir: '/r/matrix' });
    expect(page).toContain('zookeeper under pause-holder with --fencing: expected safe, observed safe — but no stale write was ever refused: the pause never hit a holder, so the fence was not tested');
  });

  it('shows what a lock costs by itself (one client) beside the contended latency, linked to its run', () => {
    const withSolo = renderMatrix(cells, { outDir: '/r/matrix', uncontended: { etcd: { acquireP50: 1.25, acquireP99: 4.5, writeP50: 0.8, writeP99: 2.1, runDir: '/r/etcd/solo' } } });
    expect(withSolo).toContain('<a href="../etcd/solo/report.html" title="one client, no fault: write 0.80 ms / 2.10 ms">1.25 ms / 4.50 ms</a>');
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
    expect(redis).toContain('<b class="obs lost">broken</b> under <a href="../redis/pause-holder/report.html">pause-holder (3 lost)</a>');
    expect(redis).toContain('no: refused (no fencing token)');
    expect(redis).toContain('0.50 ms / 2.00 ms');
    const etcd = html.slice(html.indexOf('<tr><td><b>etcd</b>'), html.indexOf('<tr><td><b>postgres</b>'));
    expect(etcd).toContain('<b class="obs safe">yes, honoured</b>');
    expect(etcd).toContain('4 stale writes rejected');
    expect(etcd).toContain('3.20 ms / 9.50 ms');
  });

  it('orders rows as the brief does and columns no-fault first, fenced last', () => {
    expect(html.indexOf('<b>redis</b>')).toBeLessThan(html.indexOf('<b>etcd</b>'));
    expect(html.indexOf('<b>etcd</b>')).toBeLessThan(html.indexOf('<b>postgres</b>'));
    const head = html.slice(html.indexOf('<table class="matrix">'), html.indexOf('</thead>', html.indexOf('<table class="matrix">')));
    expect([...head.matchAll(/<th>([^<]+)<\/th>/g)].map((m) => m[1])).toEqual(['no fault', 'pause-holder', 'clock', 'pause-holder + --fencing']);
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
