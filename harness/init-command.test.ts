import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { loadExpectations } from '../nightly/expectations.ts';
import { ignoreResults, initCommand, INIT_EXPECTATIONS, INIT_LOCK, INIT_WORKFLOW } from './init-command.ts';
import { ciHints } from './init-workflow.ts';

/** `fencepost init` without servers: what it writes and what it refuses (the run it prints: installed-package.test.ts). */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-init-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('fencepost init', () => {
  it('writes the starter plugin, an expectations file naming it, the workflow, and prints the next command', () => {
    const dir = path.join(root, 'empty');
    fs.mkdirSync(dir);
    const lines: string[] = [];
    expect(initCommand(dir, (l) => lines.push(l))).toBe(0);
    const lock = fs.readFileSync(path.join(dir, INIT_LOCK), 'utf8');
    expect(lock).toContain("from 'fencepost'");
    expect(lock).toContain('export default');
    const cells = loadExpectations(path.join(dir, INIT_EXPECTATIONS), dir);
    expect(cells.map((c) => [c.lock, c.fault, c.expect])).toEqual([
      [`./${INIT_LOCK}`, 'none', 'safe'],
      [`./${INIT_LOCK}`, 'restart-empty', 'lost'],
    ]);
    expect(fs.readFileSync(path.join(dir, INIT_WORKFLOW), 'utf8')).toContain(
      'fencepost nightly --cells=expectations --expectations=fencepost.expectations.json',
    );
    // No package.json here: init says what CI's npm ci will need before the workflow is pushed.
    expect(lines).toContain(
      'before you push .github/workflows/fencepost-nightly.yml: it runs the fencepost package.json installs, and package.json lists none:',
    );
    expect(lines).toContain(`  npm run jepsen -- --lock=./${INIT_LOCK} --nemesis=restart-empty --time-limit=15`);
    // The first run is red on purpose: a newcomer read "my lock is broken" or "the tool failed".
    expect(lines.join('\n')).toMatch(/Expect INVALID \(exit 1\) with lost updates: one Redis without persistence/);
    expect(lines).toContain(`  npm run jepsen -- --lock=./${INIT_LOCK} --nemesis=none --time-limit=15`);
    // A single-Redis lock that did not say so booted 5 masters for the one it uses.
    expect(lock).toContain('servers: { redis: 1 }');
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).toMatch(/^results\/$/m);
    expect(lines).toContain('wrote .gitignore');
  });

  it("adds results/ to a project's .gitignore once, keeping what is there", () => {
    const dir = path.join(root, 'with-gitignore');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ devDependencies: { ioredis: '^5' } }));
    const lines: string[] = [];
    initCommand(dir, (l) => lines.push(l));
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).toBe(
      "node_modules/\n# fencepost's run folders\nresults/\n",
    );
    expect(lines).toContain('added results/ to .gitignore');
    expect(ignoreResults(dir)).toBeNull();
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8').match(/results\//g)).toHaveLength(1);
    // ioredis is there; the install-script decision is not: init says the one line that records it.
    expect(lines.join('\n')).not.toContain('npm install -D ioredis');
    expect(lines).toContain(
      '  npm install-scripts approve esbuild && npm install-scripts deny ssh2 cpu-features protobufjs',
    );
  });

  it('overwrites nothing: with one of its files present it writes none and says which (exit 254)', () => {
    const dir = path.join(root, 'taken');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, INIT_EXPECTATIONS), '{"cells": []}');
    let err: unknown;
    try {
      initCommand(dir, () => {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as HarnessError).message).toContain(INIT_EXPECTATIONS);
    expect(fs.existsSync(path.join(dir, INIT_LOCK))).toBe(false);
    expect(fs.readFileSync(path.join(dir, INIT_EXPECTATIONS), 'utf8')).toBe('{"cells": []}');
  });
});

describe('what init says to change before its workflow runs in CI (it ran npm ci on a path outside the repository)', () => {
  const project = (name: string, pkg: object | null, lockfile = true) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    if (pkg) fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
    if (lockfile) fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}');
    return dir;
  };

  it('a tarball outside the repository (the README path): keep it in vendor/, with the commands, paths from here', () => {
    const dir = project('tarball-outside', { devDependencies: { fencepost: 'file:../pack/fencepost-0.1.0.tgz' } });
    expect(ciHints(dir, '0.1.0', dir)).toEqual([
      '',
      'before you push .github/workflows/fencepost-nightly.yml: package.json installs fencepost from file:../pack/fencepost-0.1.0.tgz,',
      "outside this repository, so CI's npm ci cannot fetch it. Keep the tarball in the repository and install it:",
      '  mkdir -p ./vendor && cp ../pack/fencepost-0.1.0.tgz ./vendor/ && npm install -D ./vendor/fencepost-0.1.0.tgz',
      '  then commit ./vendor/ with package.json and package-lock.json (once fencepost is on npm: npm install -D fencepost)',
    ]);
    // Typed from the folder above the project, every path is from there.
    expect(ciHints(dir, '0.1.0', root)[3]).toBe(
      '  mkdir -p ./tarball-outside/vendor && cp ./pack/fencepost-0.1.0.tgz ./tarball-outside/vendor/ && npm install -D ./tarball-outside/vendor/fencepost-0.1.0.tgz',
    );
  });

  it('a folder outside the repository (npm install ../fencepost): pack it into vendor/', () => {
    const dir = project('folder-outside', { devDependencies: { fencepost: 'file:../fencepost' } });
    expect(ciHints(dir, '0.1.0', dir)[3]).toBe(
      '  mkdir -p ./vendor && npm pack ../fencepost --pack-destination ./vendor && npm install -D ./vendor/fencepost-0.1.0.tgz',
    );
  });

  it('from the registry, or a tarball inside the repository, with a lockfile: nothing to change', () => {
    expect(ciHints(project('registry', { devDependencies: { fencepost: '^0.1.0' } }), '0.1.0')).toEqual([]);
    const vendored = project('vendored', { devDependencies: { fencepost: 'file:vendor/fencepost-0.1.0.tgz' } });
    expect(ciHints(vendored, '0.1.0')).toEqual([]);
  });

  it('no lockfile, or no fencepost in package.json: says so', () => {
    expect(ciHints(project('no-lock', { devDependencies: { fencepost: '^0.1.0' } }, false), '0.1.0')).toEqual([
      '',
      'before you push .github/workflows/fencepost-nightly.yml:',
      '  commit package-lock.json (npm install writes it): the workflow installs with npm ci, which needs it',
    ]);
    expect(ciHints(project('not-listed', { devDependencies: {} }), '0.1.0')).toEqual([
      '',
      'before you push .github/workflows/fencepost-nightly.yml: it runs the fencepost package.json installs, and package.json lists none:',
      '  npm install -D fencepost   (or, until it is on npm, a tarball kept inside this repository)',
    ]);
  });
});

describe('fencepost init in a folder it does not control (N15)', () => {
  const refused = (dir: string): HarnessError => {
    let err: unknown;
    try {
      initCommand(dir, () => {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    return err as HarnessError;
  };
  const fresh = (name: string) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return dir;
  };

  it('a dangling symbolic link where a file goes: refused, and nothing is written where it points', () => {
    const dir = fresh('dangling');
    const victim = path.join(root, 'victim-init');
    fs.symlinkSync(victim, path.join(dir, INIT_EXPECTATIONS));
    expect(refused(dir).message).toContain(`${INIT_EXPECTATIONS} already exist(s)`);
    expect(fs.existsSync(victim)).toBe(false);
    expect(fs.existsSync(path.join(dir, INIT_LOCK))).toBe(false);
  });

  it('a folder that is a symbolic link (locks -> elsewhere): refused, nothing written through it', () => {
    const dir = fresh('linked');
    const elsewhere = fresh('victim-dir');
    fs.symlinkSync(elsewhere, path.join(dir, 'locks'));
    expect(refused(dir).message).toBe(`init: locks is a symbolic link; nothing written.`);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['locks']);
  });

  it('.github is a file: refused before anything is written (it wrote two files, then crashed with 255)', () => {
    const dir = fresh('github-file');
    fs.writeFileSync(path.join(dir, '.github'), '');
    expect(refused(dir).message).toBe(`init: .github is not a folder; nothing written.`);
    expect(fs.readdirSync(dir)).toEqual(['.github']);
  });

  it('a write that fails part-way removes what it wrote: all or none, 254 naming the file', () => {
    const dir = fresh('readonly-github');
    fs.mkdirSync(path.join(dir, '.github'));
    // Root writes anywhere: the immutable attribute stops it too (as for --results, store/results-store.test.ts).
    const asRoot = process.getuid?.() === 0;
    const lock = () =>
      asRoot
        ? spawnSync('chattr', ['+i', path.join(dir, '.github')]).status === 0
        : (fs.chmodSync(path.join(dir, '.github'), 0o555), true);
    expect(lock()).toBe(true);
    try {
      expect(refused(dir).message).toMatch(
        /^init: could not write \.github\/workflows\/fencepost-nightly\.yml in .*; nothing written\.$/,
      );
      expect(fs.readdirSync(dir).sort()).toEqual(['.github']);
    } finally {
      if (asRoot) spawnSync('chattr', ['-i', path.join(dir, '.github')]);
      else fs.chmodSync(path.join(dir, '.github'), 0o755);
    }
  });
});
