import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { KNOWN_BUGS_TRUST_FILE, readKnownBugs } from './known-bugs.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const SCENARIO = {
  fencepost: 'scenario',
  version: 1,
  name: 'paused-holder',
  lock: 'lock/fast-lock.ts',
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
  fencepost: 'repro-bundle',
  version: 1,
  createdAt: '2026-12-04T00:00:00Z',
  createdBy: '0.1.0',
  signature: SCENARIO.expect,
  description: 'write #3 by p0 (A) erased by write #2 by p1 (B)',
  lock: { name: 'lock/fast-lock.ts', kind: 'plugin', file: 'lock/fast-lock.ts' },
  run: { folder: 'x', argv: [], seed: 1, startedAt: null, options: {}, faults: [], lostUpdates: 1, overlaps: 0 },
  versions: {},
  machine: { cores: 2, platform: 'Linux', node: 'v20', backend: 'local' },
};
const CODE = 'export default {};\n';

/** A known-bugs folder of the user's own holding one plugin bundle, `bug-1`. */
function knownBugs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-known-bugs-'));
  dirs.push(dir);
  const bug = path.join(dir, 'bug-1');
  fs.mkdirSync(path.join(bug, 'lock'), { recursive: true });
  fs.writeFileSync(path.join(bug, 'bundle.json'), JSON.stringify(BUNDLE));
  fs.writeFileSync(path.join(bug, 'scenario.json'), JSON.stringify(SCENARIO));
  fs.writeFileSync(path.join(bug, 'lock', 'fast-lock.ts'), CODE);
  return dir;
}

async function refusal(dir: string): Promise<string> {
  const err = await readKnownBugs(dir).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(HarnessError);
  expect((err as HarnessError).exitCode).toBe(254);
  return `${(err as HarnessError).message}\n${(err as HarnessError).hint}`;
}

describe('known bugs carrying code (R5)', () => {
  it('are refused until the folder’s trust file lists each file’s hash, with the lines to add', async () => {
    const dir = knownBugs();
    const said = await refusal(dir);
    expect(said).toMatch(/known bug bug-1 runs its own code, which .*fencepost-trusted-code\.sha256 does not list/);
    const line = said
      .split('\n')
      .find((l) => l.includes('bug-1/lock/fast-lock.ts'))!
      .trim();
    expect(line).toMatch(/^[0-9a-f]{64} {2}bug-1\/lock\/fast-lock\.ts$/);
    fs.writeFileSync(path.join(dir, KNOWN_BUGS_TRUST_FILE), `${line}\n`);
    const bugs = await readKnownBugs(dir);
    expect(bugs.map((b) => b.input.code.map((c) => c.file))).toEqual([['lock/fast-lock.ts']]);
  });

  it('a changed file is no longer trusted', async () => {
    const dir = knownBugs();
    const line = (await refusal(dir))
      .split('\n')
      .find((l) => l.includes('bug-1/lock/'))!
      .trim();
    fs.writeFileSync(path.join(dir, KNOWN_BUGS_TRUST_FILE), `${line}\n`);
    fs.appendFileSync(path.join(dir, 'bug-1', 'lock', 'fast-lock.ts'), 'process.exit(3);\n');
    expect(await refusal(dir)).toContain('does not list');
  });

  it('a known-bugs folder others can write is refused: they could add a bug and its trust', async () => {
    const dir = knownBugs();
    fs.chmodSync(dir, 0o777);
    expect(await refusal(dir)).toMatch(/is writable by others \(mode 777\)/);
  });
});
