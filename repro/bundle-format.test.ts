import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, readBundle } from './bundle-format.ts';
import { replayInput, removeUnpacked } from './replay-input.ts';
import { untrustedCode } from './bundle-code.ts';
import { replay, replayCommand, replayOptionsOf } from './replay-command.ts';
import { Shutdown } from '../common/shutdown.ts';
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_ENTRIES } from './bundle-unpack.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const SCENARIO = {
  fencepost: 'scenario',
  version: 1,
  name: 'paused-holder',
  clients: ['A', 'B'],
  steps: [
    'A acquire',
    'A read',
    'pause A',
    'wait lease-expired A',
    'B acquire',
    'B read',
    'B write',
    'resume A',
    'A write',
  ],
  expect: { checker: 'lost-updates', anomaly: 'lost-update', story: 'pause-holder' },
};
const BUNDLE = {
  fencepost: BUNDLE_FORMAT,
  version: BUNDLE_VERSION,
  createdAt: '2026-12-04T00:00:00Z',
  createdBy: '0.1.0',
  signature: SCENARIO.expect,
  description: 'write #3 by p0 (A) erased by write #2 by p1 (B)',
  lock: { name: 'redis', kind: 'builtin' },
  run: {
    folder: 'x',
    argv: ['--lock=redis'],
    seed: 1,
    startedAt: null,
    options: {},
    faults: [],
    lostUpdates: 1,
    overlaps: 0,
  },
  versions: {},
  machine: { cores: 2, platform: 'Linux', node: 'v20', backend: 'local' },
};

/** A bundle folder under a fresh temporary folder, with `files` overriding (null: leaving out) its files. */
function bundleDir(files: Record<string, string | null> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-bundle-test-'));
  dirs.push(root);
  const dir = path.join(root, 'repro-redis-x');
  fs.mkdirSync(dir);
  const all: Record<string, string | null> = {
    'bundle.json': JSON.stringify(BUNDLE),
    'scenario.json': JSON.stringify({ ...SCENARIO, lock: 'redis' }),
    ...files,
  };
  for (const [f, text] of Object.entries(all)) if (text !== null) fs.writeFileSync(path.join(dir, f), text);
  return dir;
}

async function refusal(arg: string): Promise<string> {
  try {
    await replayInput(arg);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    return (err as Error).message;
  }
  throw new Error(`${arg} was accepted`);
}

describe('reading a bundle', () => {
  it('a whole bundle: its scenario and the signature a replay counts', async () => {
    const dir = bundleDir();
    const b = readBundle(dir);
    expect('problems' in b).toBe(false);
    const input = await replayInput(dir);
    expect(input).toMatchObject({ expect: SCENARIO.expect, original: BUNDLE.description, name: 'repro-redis-x' });
  });

  it('an incomplete bundle (no scenario.json) is refused naming the file', async () => {
    const dir = bundleDir({ 'scenario.json': null });
    expect(await refusal(dir)).toMatch(/a damaged or incomplete bundle: .*scenario\.json: cannot read it: ENOENT/);
  });

  it('a corrupt bundle.json is refused naming the file', async () => {
    const dir = bundleDir({ 'bundle.json': '{"fencepost": "repro-bun' });
    expect(await refusal(dir)).toMatch(/bundle\.json: not JSON/);
  });

  it('a bundle from a newer fencepost, or with a lock that escapes it, says so', async () => {
    expect(await refusal(bundleDir({ 'bundle.json': JSON.stringify({ ...BUNDLE, version: 2 }) }))).toMatch(
      /`version` 2: this fencepost reads bundle version 1/,
    );
    const escaping = { ...BUNDLE, lock: { name: './x.ts', kind: 'plugin', file: '../x.ts' } };
    expect(await refusal(bundleDir({ 'bundle.json': JSON.stringify(escaping) }))).toMatch(
      /`lock.file` must name the lock inside/,
    );
    const missing = { ...BUNDLE, lock: { name: './x.ts', kind: 'plugin', file: 'lock/x.ts' } };
    expect(await refusal(bundleDir({ 'bundle.json': JSON.stringify(missing) }))).toMatch(/lock\/x\.ts: missing/);
  });

  it('a damaged scenario inside the bundle names its step', async () => {
    const bad = { ...SCENARIO, steps: ['A acquire', 'A frobnicate'] };
    expect(await refusal(bundleDir({ 'scenario.json': JSON.stringify(bad) }))).toMatch(
      /scenario\.json: step 2 "A frobnicate"/,
    );
  });

  it('a folder that is not a bundle, and a path that does not exist', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-bundle-test-'));
    dirs.push(root);
    expect(await refusal(root)).toMatch(/not a bundle folder \(no bundle\.json\)/);
    expect(await refusal(path.join(root, 'nope'))).toMatch(/no such file or folder/);
  });

  it('a .tgz: unpacked and read; a truncated one, or one whose entries escape, is refused', async () => {
    const dir = bundleDir();
    const tgz = `${dir}.tgz`;
    await execa('tar', ['-czf', tgz, '-C', path.dirname(dir), path.basename(dir)]);
    const input = await replayInput(tgz);
    expect(input.scenario.name).toBe('paused-holder');
    dirs.push(path.dirname(path.dirname(input.file)));

    const cut = path.join(path.dirname(dir), 'cut.tgz');
    fs.writeFileSync(cut, fs.readFileSync(tgz).subarray(0, 40));
    expect(await refusal(cut)).toMatch(/not a readable \.tgz/);

    const evil = path.join(path.dirname(dir), 'evil.tgz');
    await execa('tar', ['-czf', evil, '-C', dir, '--transform', 's,^,../,', 'bundle.json']);
    expect(await refusal(evil)).toMatch(/an entry escapes its folder|one folder/);
  });
});

/** A plugin bundle: bundle.json declares `lock/fast-lock.ts`, the scenario loads `scenarioLock`. */
function pluginBundle(scenarioLock: string, extra: Record<string, string | null> = {}): string {
  const dir = bundleDir({
    'bundle.json': JSON.stringify({
      ...BUNDLE,
      lock: { name: 'lock/fast-lock.ts', kind: 'plugin', file: 'lock/fast-lock.ts' },
    }),
    'scenario.json': JSON.stringify({ ...SCENARIO, lock: scenarioLock }),
    ...extra,
  });
  fs.mkdirSync(path.join(dir, 'lock'));
  fs.writeFileSync(path.join(dir, 'lock', 'fast-lock.ts'), 'export default {};\n');
  return dir;
}

describe("a bundle's own code (R5, R21)", () => {
  it('a plugin bundle names the code it would run, with its hash, and the lock the scenario loads', async () => {
    const input = await replayInput(pluginBundle('lock/fast-lock.ts'));
    expect(input.lock).toBe('lock/fast-lock.ts');
    expect(input.code).toEqual([{ file: 'lock/fast-lock.ts', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const refused = untrustedCode(input, { trusted: false, user: 'root' });
    expect(refused?.exitCode).toBe(254);
    expect(refused?.message).toMatch(
      /^replay repro-redis-x: this bundle runs its own code as root: lock\/fast-lock\.ts \(sha256 [0-9a-f]{12}…\)/,
    );
    expect(refused?.hint).toContain('--trust-bundle-code');
    expect(untrustedCode(input, { trusted: true, user: 'root' })).toBeNull();
  });

  it('a built-in bundle runs no code of its own, and names its lock', async () => {
    const input = await replayInput(bundleDir());
    expect(input).toMatchObject({ lock: 'redis', code: [] });
    expect(untrustedCode(input, { trusted: false, user: 'root' })).toBeNull();
  });

  it('a bundle declaring a built-in lock cannot make its scenario import a path, with or without trust', async () => {
    const outside = path.join(os.tmpdir(), 'outside.ts');
    for (const lock of ['lock/hidden.ts', outside, '../../../outside.ts', 'exec:./run.sh', 'redlock'])
      expect(await refusal(bundleDir({ 'scenario.json': JSON.stringify({ ...SCENARIO, lock }) }))).toMatch(
        /declares the built-in lock redis, but its scenario\.json loads /,
      );
  });

  it('a plugin bundle may load only its declared file, inside itself: no other file, no path out, no link', async () => {
    expect(await refusal(pluginBundle('lock/other.ts', { 'x.ts': '' }))).toMatch(
      /its scenario\.json loads lock\/other\.ts, not the lock\.file it declares \(lock\/fast-lock\.ts\)/,
    );
    expect(await refusal(pluginBundle('../../outside.ts'))).toMatch(/loads a path outside the bundle/);
    const linked = pluginBundle('lock/fast-lock.ts');
    fs.symlinkSync('/etc/hostname', path.join(linked, 'lock', 'helper.ts'));
    expect(await refusal(linked)).toMatch(/lock\/helper\.ts is a link: a bundle holds its own files/);
  });
});

describe('unpacking a .tgz (R12)', () => {
  async function pack(dir: string): Promise<string> {
    const tgz = `${dir}.tgz`;
    await execa('tar', ['-czf', tgz, '-C', path.dirname(dir), path.basename(dir)]);
    return tgz;
  }
  function scratch(): string {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-unpack-test-'));
    dirs.push(tmp);
    return tmp;
  }

  it(`refuses a bomb past ${MAX_BUNDLE_BYTES} bytes unpacked, or past ${MAX_BUNDLE_ENTRIES} entries, leaving nothing`, async () => {
    const tmp = scratch();
    const bomb = await pack(bundleDir({ 'window.jsonl': '0'.repeat(MAX_BUNDLE_BYTES + 1) }));
    expect(fs.statSync(bomb).size).toBeLessThan(100_000);
    await expect(replayInput(bomb, { tmp })).rejects.toThrow(/unpacks to more than 10 MiB/);
    const many = bundleDir();
    fs.mkdirSync(path.join(many, 'lock'));
    for (let i = 0; i < MAX_BUNDLE_ENTRIES; i++) fs.writeFileSync(path.join(many, 'lock', `f${i}`), '');
    await expect(replayInput(await pack(many), { tmp })).rejects.toThrow(/holds more than 256 entries/);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('unpacks into a fresh folder that goes with the replay, and with a refusal after unpacking', async () => {
    const tmp = scratch();
    const input = await replayInput(await pack(bundleDir()), { tmp });
    expect(fs.readdirSync(tmp)).toHaveLength(1);
    expect(input.unpacked).toBe(path.join(tmp, fs.readdirSync(tmp)[0]));
    removeUnpacked(input);
    expect(fs.readdirSync(tmp)).toEqual([]);
    const bad = bundleDir({ 'scenario.json': JSON.stringify({ ...SCENARIO, lock: 'lock/hidden.ts' }) });
    await expect(replayInput(await pack(bad), { tmp })).rejects.toThrow(/declares the built-in lock/);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe('replay of a bundle with code, without --trust-bundle-code (R5, R12)', () => {
  it('refuses with 254 before anything starts, and leaves nothing of the .tgz', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-replay-cmd-test-'));
    dirs.push(tmp);
    const dir = pluginBundle('lock/fast-lock.ts');
    const tgz = `${dir}.tgz`;
    await execa('tar', ['-czf', tgz, '-C', path.dirname(dir), path.basename(dir)]);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const err = await replayCommand([tgz, '--runs=1'], new Shutdown()).catch((e: unknown) => e);
      expect((err as HarnessError).exitCode).toBe(254);
      expect((err as HarnessError).message).toMatch(/this bundle runs its own code as .*: lock\/fast-lock\.ts/);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe('the replay line names the lock the runs load (R21)', () => {
  it("the bundle's own lock, not --lock's default; the command line's when given", async () => {
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-replay-line-test-'));
    dirs.push(results);
    const input = await replayInput(pluginBundle('lock/fast-lock.ts'));
    const lines: string[] = [];
    await replay(input, replayOptionsOf({ resultsDir: results }), 0, new Shutdown(), (l) => lines.push(l));
    await replay(input, replayOptionsOf({ resultsDir: results, lock: 'redis' }), 0, new Shutdown(), (l) =>
      lines.push(l),
    );
    expect(lines).toEqual([
      "replay: repro-redis-x: 0 runs with --lock=lock/fast-lock.ts (the bundle's own code, trusted), expecting lost-updates/lost-update after pause-holder's story",
      "replay: repro-redis-x: 0 runs with --lock=redis, expecting lost-updates/lost-update after pause-holder's story",
    ]);
  });
});

describe("a manifest bundle's command stays in the bundle (R5)", () => {
  function manifestBundle(manifest: Record<string, unknown>): string {
    const dir = bundleDir({
      'bundle.json': JSON.stringify({
        ...BUNDLE,
        lock: { name: 'lock/m.json', kind: 'manifest', file: 'lock/m.json' },
      }),
      'scenario.json': JSON.stringify({ ...SCENARIO, lock: 'lock/m.json' }),
    });
    fs.mkdirSync(path.join(dir, 'lock'));
    fs.writeFileSync(path.join(dir, 'lock', 'm.json'), JSON.stringify(manifest));
    fs.writeFileSync(path.join(dir, 'lock', 'm.py'), 'print(1)\n');
    return dir;
  }

  it('runs its own program with an interpreter of the machine; no cwd, no ../ out of it', async () => {
    const ok = await replayInput(manifestBundle({ protocol: 1, command: ['/usr/bin/python3', 'm.py'] }));
    expect(ok.code.map((c) => c.file)).toEqual(['lock/m.json', 'lock/m.py']);
    expect(await refusal(manifestBundle({ protocol: 1, cwd: '/', command: ['./m.py'] }))).toMatch(/sets `cwd`/);
    expect(await refusal(manifestBundle({ protocol: 1, command: ['python3', '../../../x.py'] }))).toMatch(
      /command names a path outside the bundle: \.\.\/\.\.\/\.\.\/x\.py/,
    );
  });
});
