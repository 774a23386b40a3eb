import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What `npm pack` puts in the tarball a user installs (`npm install -D fencepost-<v>.tgz`): the sources the CLI
 * runs, its report assets and clock shim, the examples — and no test, result or scratch file.
 */
interface PackEntry {
  path: string;
}
const pack = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' }),
)[0] as {
  files: PackEntry[];
  size: number;
};
const files = pack.files.map((f) => f.path);
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, unknown>;
};

describe('the npm package', () => {
  it('holds no test, test folder, result or scratch file', () => {
    expect(files.length).toBeGreaterThan(100);
    const offending = files.filter(
      (f) =>
        /\.test\.ts$/.test(f) ||
        /^test\//.test(f) ||
        /(^|\/)results\//.test(f) ||
        /(^|\/)\.tmp-/.test(f) ||
        /^(bench|scratch|test-output)\//.test(f) ||
        f.endsWith('.tgz'),
    );
    expect(offending).toEqual([]);
  });

  it('holds what the CLI reads at run time: the bin, the entry point, the CLI, the client, the shim, the report assets', () => {
    for (const f of [
      pkg.bin.fencepost,
      'index.ts',
      'cli.ts',
      'workloads/client.ts',
      'nemesis/clock/shim.c',
      'report/client/report.js',
      'report/client/page.css',
      'cluster/docker/Dockerfile',
      'examples/my-lock.ts',
      'examples/broken/check-then-set.ts',
      'README.md',
      'package.json',
    ])
      expect(files, f).toContain(f);
  });

  it('names its bin and its plugin API through `exports` (the self-reference the examples use)', () => {
    expect(pkg.bin).toEqual({ fencepost: 'bin/fencepost.js' });
    expect(pkg.exports['.']).toEqual({ types: './index.ts', default: './index.ts' });
    expect(fs.readFileSync(pkg.bin.fencepost, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });
});
