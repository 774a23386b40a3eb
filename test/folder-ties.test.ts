import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering: no two top-level folders import each other (a folder imports only folders on lower floors), so a
 * reader can read the house floor by floor. Counted over production files (tests excluded), relative `from '…'`
 * imports and re-exports, type imports included.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Ties left, each with why (none today: the reproduction commands' option tables moved to
 * harness/commands/reproduce.ts, so the help no longer reaches up into repro/). A new one fails this test.
 */
const KNOWN_TIES: string[] = [];

function folderEdges(): Set<string> {
  const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.includes('/') && !f.endsWith('.test.ts') && !/^(test|examples|node_modules)\//.test(f));
  const edges = new Set<string>();
  for (const f of files) {
    const from = f.split('/')[0];
    for (const [, spec] of readFileSync(path.join(ROOT, f), 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(f), spec)).split('/')[0];
      if (to !== from && to !== '..' && !to.endsWith('.ts')) edges.add(`${from}>${to}`);
    }
  }
  return edges;
}

describe('the folders are layered', () => {
  it('no two top-level folders import each other (but those named in KNOWN_TIES: none)', () => {
    const edges = folderEdges();
    expect(edges.size).toBeGreaterThan(20);
    const ties = [...edges]
      .map((e) => e.split('>'))
      .filter(([a, b]) => a < b && edges.has(`${b}>${a}`))
      .map(([a, b]) => `${a} <-> ${b}`)
      .sort();
    expect(ties).toEqual(KNOWN_TIES);
  });
});
