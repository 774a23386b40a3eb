import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeRunDir } from '../test/support/run-dirs.ts';
import { writeIndex } from './index-page.ts';
import { writeMatrix } from '../matrix/matrix-page.ts';
import { writeReport } from './report.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-index-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('writeIndex', () => {
  const bad = writeRunDir(root, 'redis', '2026-11-29T08-00-00.000Z', { fenced: false });
  const good = writeRunDir(root, 'etcd', '2026-11-29T09-00-00.000Z', { fenced: true });
  writeRunDir(root, 'zookeeper', '2026-11-29T10-00-00.000Z', {
    fenced: false,
    results: false,
    extraTest: { interrupted: true },
  });
  writeRunDir(root, '<img src=x onerror=alert(1)>', '2026-11-29T07-00-00.000Z', { fenced: false });
  writeReport(bad);
  writeReport(good);
  writeMatrix(path.join(root, 'matrix', '2026-11-29T11-00-00.000Z'), []);
  const file = writeIndex(root);
  const html = fs.readFileSync(file, 'utf8');
  const rows = html.split('<tr').slice(2);

  it('lists every run newest first with its verdict colour, lost updates and a relative link to its report', () => {
    expect(file).toBe(path.join(root, 'index.html'));
    expect(rows).toHaveLength(4);
    expect(rows[0]).toContain('zookeeper');
    expect(rows[0]).toContain('<span class="v unknown">STOPPED</span>');
    expect(rows[1]).toContain('<a href="etcd/2026-11-29T09-00-00.000Z/report.html">');
    expect(rows[1]).toContain('<span class="v good">VALID</span>');
    expect(rows[2]).toMatch(/class="row-bad"/);
    expect(rows[2]).toContain('<span class="v bad">INVALID</span>');
    expect(rows[2]).toContain('<td class="num" data-sort="1"><b>1</b></td>');
    expect(rows[2]).toContain('<td>pause-holder</td>');
  });

  it('links runs without a report to their files, and lists matrix pages', () => {
    expect(rows[0]).toContain('<a href="zookeeper/2026-11-29T10-00-00.000Z/">');
    expect(html).toContain('<a href="matrix/2026-11-29T11-00-00.000Z/matrix.html">');
  });

  it('escapes whatever a folder or test.json says', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('works on an empty or missing results folder', () => {
    const empty = path.join(root, 'none', 'here');
    expect(fs.readFileSync(writeIndex(empty), 'utf8')).toContain('No runs yet.');
  });
});
