import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRun } from '../checkers/check-run.ts';
import { SECRETS_FILE } from '../cluster/credentials.ts';
import { HarnessError } from '../common/errors.ts';
import { pausedHolderHistory, PAUSED_HOLDER_TEST } from '../test/support/paused-holder-history.ts';
import { RUN_FILES } from '../store/run-dir.ts';
import { readBundle } from './bundle-format.ts';
import { reproduce } from './repro-command.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const SECRET = 'pw-5f1c0ffee-must-not-travel';

/** A finished run folder as a run leaves it, plus a secrets file and a log that name its password. */
function runFolder(fenced: boolean, test: Record<string, unknown> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-repro-test-'));
  dirs.push(root);
  const dir = path.join(root, 'redis', '2026-12-04T10-00-00.000Z');
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const ops = pausedHolderHistory({ fenced });
  fs.writeFileSync(path.join(dir, RUN_FILES.history), ops.map((o) => JSON.stringify(o)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, RUN_FILES.results), JSON.stringify(checkRun(ops, { fencing: fenced })));
  fs.writeFileSync(
    path.join(dir, RUN_FILES.test),
    JSON.stringify({
      ...PAUSED_HOLDER_TEST,
      faults: ['pause-holder'],
      config: { ...PAUSED_HOLDER_TEST.config, backend: 'local' },
      ...test,
    }),
  );
  fs.writeFileSync(path.join(dir, SECRETS_FILE), JSON.stringify({ redis: SECRET }));
  fs.writeFileSync(path.join(dir, 'logs', 'redis[0].log'), `AUTH ${SECRET}\n`);
  return dir;
}

describe('repro <run-dir>', () => {
  it('writes a versioned bundle folder and its .tgz, which replay reads, and no secret', async () => {
    const dir = runFolder(false);
    const { bundle, signatureText } = await reproduce(dir);
    expect(signatureText).toBe('lost-updates/lost-update with no whole fault story');
    expect(bundle.dir).toBe(path.join(dir, 'repro-redis-2026-12-04T10-00-00.000Z'));
    expect(fs.readdirSync(bundle.dir).sort()).toEqual(['README.md', 'bundle.json', 'scenario.json', 'window.jsonl']);
    const read = readBundle(bundle.dir);
    if ('problems' in read) throw new Error(read.problems.join('; '));
    expect(read.json).toMatchObject({
      fencepost: 'repro-bundle',
      version: 1,
      lock: { name: 'redis', kind: 'builtin' },
    });
    expect(read.json.run).toMatchObject({ argv: PAUSED_HOLDER_TEST.argv, seed: 1234 });
    const readme = fs.readFileSync(path.join(bundle.dir, 'README.md'), 'utf8');
    expect(readme).toMatch(/replay \./);
    expect(readme).toContain(bundle.description);
    // Nothing of the run's secrets file or logs travels: not in the folder, not in the tarball.
    const listing = (await execa('tar', ['-tzf', bundle.tgz])).stdout;
    expect(listing).not.toMatch(/secrets|logs\//);
    const everything = [
      ...fs.readdirSync(bundle.dir).map((f) => fs.readFileSync(path.join(bundle.dir, f), 'utf8')),
      (await execa('tar', ['-xzOf', bundle.tgz])).stdout,
    ].join('\n');
    expect(everything).not.toContain(SECRET);
  });

  it('a run that did not fail, or a folder that is not a run, is 254 with what it is', async () => {
    const fenced = runFolder(true);
    await expect(reproduce(fenced)).rejects.toThrow(/its verdict is (VALID|UNKNOWN): there is no failure to reproduce/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-repro-test-'));
    dirs.push(empty);
    const err = await reproduce(empty).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as Error).message).toMatch(/not a run folder \(no test\.json\)/);
  });
});

/** A manifest lock in a folder of its own (the user's checkout), with `files` beside it; the run used it. */
function manifestRun(command: string[], files: Record<string, { text: string; mode?: number }>): string {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-repro-lock-'));
  dirs.push(src);
  const manifest = path.join(src, 'lock.json');
  fs.writeFileSync(manifest, JSON.stringify({ protocol: 1, command }));
  for (const [f, { text, mode }] of Object.entries(files)) fs.writeFileSync(path.join(src, f), text, { mode });
  const results = path.join(src, 'results');
  return runFolder(false, {
    lock: manifest,
    argv: [`--lock=${manifest}`, '--nemesis=pause-holder', '--results', results, `--target=${src}/t.json`],
    config: {
      ...PAUSED_HOLDER_TEST.config,
      lock: manifest,
      backend: 'local',
      resultsDir: results,
      target: `${src}/t.json`,
    },
  });
}

describe('what a bundle carries of the lock (R11, R20)', () => {
  it('the manifest and the program its command runs — not a file it merely names — and no path of the machine', async () => {
    const dir = manifestRun(['/usr/bin/python3', 'lock.py', 'creds.env'], {
      'lock.py': { text: 'print("lock")\n' },
      'creds.env': { text: 'REDIS_TOKEN=sekrit-from-env-file\n', mode: 0o600 },
    });
    const { bundle } = await reproduce(dir);
    expect(fs.readdirSync(path.join(bundle.dir, 'lock')).sort()).toEqual(['lock.json', 'lock.py']);
    expect(bundle.notCopied).toEqual(['creds.env']);
    expect((await execa('tar', ['-tzf', bundle.tgz])).stdout).not.toContain('creds.env');
    const json = fs.readFileSync(path.join(bundle.dir, 'bundle.json'), 'utf8');
    const readme = fs.readFileSync(path.join(bundle.dir, 'README.md'), 'utf8');
    for (const text of [json, readme]) expect(text).not.toMatch(new RegExp(`${os.tmpdir()}|fp-repro-`));
    const b = JSON.parse(json) as { lock: { name: string }; run: { argv: string[]; options: Record<string, unknown> } };
    expect(b.lock.name).toBe('lock/lock.json');
    expect(b.run.argv).toEqual(['--lock=lock/lock.json', '--nemesis=pause-holder']);
    expect(b.run.options.lock).toBe('lock/lock.json');
    expect(b.run.options).not.toHaveProperty('target');
  });

  it("refuses to carry the run's secret or a credential-looking file, naming what it found, writing nothing", async () => {
    const leaky = manifestRun(['/usr/bin/python3', 'lock.py'], { 'lock.py': { text: `PW = "${SECRET}"\n` } });
    await expect(reproduce(leaky)).rejects.toThrow(/lock\/lock\.py holds a password of the run \(secrets\.json\)/);
    expect(fs.readdirSync(leaky).filter((f) => f.startsWith('repro-'))).toEqual([]);
    const key = manifestRun(['./id_ed25519'], { id_ed25519: { text: 'x', mode: 0o700 } });
    await expect(reproduce(key)).rejects.toThrow(/lock\/id_ed25519 looks like a credential/);
  });

  it("is written with the run folder's modes: the owner's alone", async () => {
    const dir = manifestRun(['./lock.sh'], { 'lock.sh': { text: '#!/bin/sh\n', mode: 0o755 } });
    const { bundle } = await reproduce(dir);
    const mode = (f: string) => (fs.statSync(path.join(bundle.dir, f)).mode & 0o777).toString(8);
    expect([mode('.'), mode('bundle.json'), mode('README.md'), mode('lock'), mode('lock/lock.sh')]).toEqual([
      '700',
      '600',
      '600',
      '700',
      '700',
    ]);
    expect(mode('lock/lock.json')).toBe('600');
    expect((fs.statSync(bundle.tgz).mode & 0o777).toString(8)).toBe('600');
  });
});
