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
function runFolder(fenced: boolean): string {
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
