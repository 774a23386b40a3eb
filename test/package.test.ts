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
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as Record<string, unknown> & {
  bin: Record<string, string>;
  exports: Record<string, unknown>;
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
  name: string;
  version: string;
  packages: Record<string, Record<string, unknown> & { hasInstallScript?: boolean }>;
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
      'LICENSE',
      'docs/protocol.md',
      'package.json',
    ])
      expect(files, f).toContain(f);
  });

  it('names its bin and its plugin API through `exports` (the self-reference the examples use)', () => {
    expect(pkg.bin).toEqual({ fencepost: 'bin/fencepost.js' });
    expect(pkg.exports['.']).toEqual({ types: './index.ts', default: './index.ts' });
    expect(fs.readFileSync(pkg.bin.fencepost, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it('can be published: not private, with a licence file, a repository and an engine', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('MIT');
    expect(fs.readFileSync('LICENSE', 'utf8')).toMatch(/^MIT License/);
    expect(pkg.repository).toMatchObject({ type: 'git' });
    expect(pkg.engines).toEqual({ node: '>=20.6' });
  });

  // `npm install` in a fresh clone rewrote the lock (it lacked `bin` and had engines ">=20"): .ci/run also runs
  // `npm install --package-lock-only` and fails on a diff; this is the same check without npm, in the unit tier.
  it("package-lock.json's root entry is package.json's, as npm would write it", () => {
    const root = lock.packages[''];
    expect(lock.name).toBe(pkg.name);
    expect(lock.version).toBe(pkg.version);
    for (const field of ['name', 'version', 'license', 'dependencies', 'devDependencies', 'bin', 'engines'])
      expect(root[field], field).toEqual(pkg[field]);
  });

  // npm 11 warns on install about every dependency whose install script no `allowScripts` entry covers (npm 12
  // blocks them). The decision is written down: esbuild's check of its binary (tsx runs on it) runs; ssh2's and
  // cpu-features' optional native builds (dockerode's SSH transport, unused: the engine is a local socket) and
  // protobufjs's version-scheme warning (etcd3's gRPC) do not, nor classic-level's node-gyp-build (dynalite requires
  // `level`, but the run's DynamoDB keeps its data in memory-level; classic-level ships prebuilt bindings anyway).
  it('decides every install script in its dependency tree (allowScripts), so npm install warns about none', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([p, e]) => p !== '' && e.hasInstallScript === true)
      .map(([p]) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const name of withScripts) expect(typeof pkg.allowScripts[name], name).toBe('boolean');
    expect(pkg.allowScripts).toEqual({
      'classic-level': false,
      esbuild: true,
      'cpu-features': false,
      protobufjs: false,
      ssh2: false,
    });
  });
});
