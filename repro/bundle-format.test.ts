import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, readBundle } from './bundle-format.ts';
import { replayInput } from './replay-input.ts';

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
