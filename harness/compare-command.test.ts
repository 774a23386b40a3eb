import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from './run-argv.ts';
import { compareCommand } from './compare-command.ts';
import { writeRunDir } from '../test/support/run-dirs.ts';
import { PAUSED_HOLDER_TEST } from '../test/support/paused-holder-history.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-compare-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const config = resolveConfig([`--results=${root}`], () => 1);

describe('compare', () => {
  const a = writeRunDir(root, 'redis', '2026-11-29T08-00-00.000Z', { fenced: false });
  const b = writeRunDir(root, 'etcd', '2026-11-29T09-00-00.000Z', { fenced: true });
  const crashed = writeRunDir(root, 'zookeeper', '2026-11-29T10-00-00.000Z', { fenced: false, results: false });
  let err: string[];
  let out: string[];
  beforeEach(() => {
    err = [];
    out = [];
    vi.spyOn(console, 'error').mockImplementation((...x) => void err.push(x.join(' ')));
    vi.spyOn(console, 'log').mockImplementation((...x) => void out.push(x.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());

  it('refuses fewer than two run dirs with 254 and the usage', async () => {
    expect(await compareCommand([], config)).toBe(254);
    expect(await compareCommand([a], config)).toBe(254);
    expect(err.join('\n')).toContain('compare needs at least two run dirs, got 1');
    expect(err.join('\n')).toContain('usage: npm run jepsen -- compare <run-dir> <run-dir>');
  });

  it('refuses a dir without results.json, and one that does not exist, with 254', async () => {
    expect(await compareCommand([a, crashed], config)).toBe(254);
    expect(err.join('\n')).toContain(`${crashed} has no results.json`);
    expect(await compareCommand([a, path.join(root, 'nope')], config)).toBe(254);
    expect(fs.readdirSync(path.join(root, 'redis')).filter((f) => f.startsWith('compare'))).toEqual([]);
  });

  it('writes a page named for its runs beside the first run, prints its path, and highlights what changed', async () => {
    expect(await compareCommand([a, b], config)).toBe(0);
    const file = path.join(root, 'redis', 'compare-2026-11-29T08-00-00.000Z-vs-etcd-2026-11-29T09-00-00.000Z.html');
    expect(out).toEqual([
      `run 1: INVALID  --lock=redis  lost updates 1  ${a}`,
      `run 2: VALID  --lock=etcd  lost updates 0  ${b}`,
      `wrote ${file}`,
    ]);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toContain('<li>run 2: verdict INVALID → VALID</li>');
    expect(html).toContain('<li>run 2: fencing off → on</li>');
    expect(html).toContain('<li>run 2: lock redis → etcd</li>');
    expect(html).toMatch(
      /<tr class="differs"><td>lost updates<\/td><td class="num">1<\/td><td class="num changed better">0<span class="delta">−1<\/span><\/td><\/tr>/,
    );
    expect(html).toMatch(
      /<tr class="differs"><td>fencing<\/td><td class="num">off<\/td><td class="num changed">on<\/td><\/tr>/,
    );
    expect(html).toMatch(/<tr class=""><td>TTL \(ms\)<\/td>/);
    expect(html).toContain('<a href="2026-11-29T08-00-00.000Z/report.html">');
    expect(html).toContain('<a href="../etcd/2026-11-29T09-00-00.000Z/report.html">');
  });

  // "8 → 2 lost updates" was green between a 60 s local run and a 20 s Docker run.
  it('warns when the runs differ in length, backend or faults, and then marks no count better or worse', async () => {
    const short = writeRunDir(root, 'redis', '2026-11-29T11-00-00.000Z', {
      fenced: false,
      extraTest: { config: { ...PAUSED_HOLDER_TEST.config, timeLimitS: 20, backend: 'docker' } },
    });
    const long = writeRunDir(root, 'redis', '2026-11-29T12-00-00.000Z', {
      fenced: true,
      extraTest: { config: { ...PAUSED_HOLDER_TEST.config, fencing: true, timeLimitS: 60, backend: 'local' } },
    });
    expect(await compareCommand([long, short], config)).toBe(0);
    expect(out.join('\n')).toContain(
      'warning: these runs are not comparable, their counts differ for this alone: time limit: 60 s in run 1, 20 s in run 2; backend: local in run 1, docker in run 2',
    );
    const html = fs.readFileSync(
      path.join(root, 'redis', 'compare-2026-11-29T12-00-00.000Z-vs-2026-11-29T11-00-00.000Z.html'),
      'utf8',
    );
    expect(html).toContain('<b>These runs are not comparable</b>');
    expect(html).toContain('<li>time limit: 60 s in run 1, 20 s in run 2</li>');
    expect(html).toMatch(
      /<td>lost updates<\/td><td class="num">0<\/td><td class="num changed">1<span class="delta">\+1<\/span>/,
    );
    expect(html).not.toMatch(/changed (better|worse)/);
  });

  it('a second compare of the session writes its own page: the first is kept (it was overwritten)', async () => {
    const c = writeRunDir(root, 'redis', '2026-11-29T13-00-00.000Z', { fenced: false });
    await compareCommand([a, b], config);
    await compareCommand([a, c], config);
    expect(
      fs
        .readdirSync(path.join(root, 'redis'))
        .filter((f) => f.startsWith('compare-'))
        .sort(),
    ).toEqual(
      expect.arrayContaining([
        'compare-2026-11-29T08-00-00.000Z-vs-2026-11-29T13-00-00.000Z.html',
        'compare-2026-11-29T08-00-00.000Z-vs-etcd-2026-11-29T09-00-00.000Z.html',
      ]),
    );
  });

  it('lists no figure that reads the same in both runs as a change (9.4 → 9.4 per minute was one)', async () => {
    const one = writeRunDir(root, 'redis', '2026-11-29T14-00-00.000Z', { fenced: false });
    const two = writeRunDir(root, 'redis', '2026-11-29T15-00-00.000Z', { fenced: false });
    // The same lost updates over 63.7 s and 63.9 s: 0.94 and 0.94 per minute as shown, not equal as numbers.
    for (const [dir, durationMs] of [
      [one, 63_700],
      [two, 63_900],
    ] as const) {
      const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify({ ...results, durationMs }));
    }
    expect(await compareCommand([one, two], config)).toBe(0);
    const html = fs.readFileSync(
      path.join(root, 'redis', 'compare-2026-11-29T14-00-00.000Z-vs-2026-11-29T15-00-00.000Z.html'),
      'utf8',
    );
    expect(html).not.toContain('lost updates per minute 0.9 → 0.9');
    expect(/<tr[^>]*><td>lost updates per minute<\/td>.*?<\/tr>/.exec(html)?.[0]).toBe(
      '<tr class=""><td>lost updates per minute</td><td class="num">0.9</td><td class="num ">0.9</td></tr>',
    );
  });
});
