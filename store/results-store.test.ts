import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../common/exit-codes.ts';
import { resultsFolderProblem } from './results-store.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { createRunDir, writeJson } from './run-dir.ts';
import { Journal } from '../history/journal.ts';
import { writeReport } from '../report/report.ts';
import { writeRunDir } from '../test/support/run-dirs.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fp-results-own-')));
  made.push(d);
  return d;
}
const asRoot = process.getuid?.() === 0;

describe('a results folder another user can write into is refused', () => {
  it('a folder of ours, made or to be made under one of ours or under sticky /tmp, is fine', () => {
    const d = tmp();
    expect(resultsFolderProblem(d)).toBeNull();
    expect(resultsFolderProblem(path.join(d, 'not', 'yet'))).toBeNull();
    fs.chmodSync(d, 0o1777); // sticky: others may add files, not rename or remove ours
    expect(resultsFolderProblem(path.join(d, 'mine'))).toBeNull();
  });

  it('a world- or group-writable folder without the sticky bit, the results folder or one above it', () => {
    const d = tmp();
    fs.chmodSync(d, 0o777);
    expect(resultsFolderProblem(d)).toBe(`${d} is writable by every user (mode 777) without the sticky bit`);
    expect(resultsFolderProblem(path.join(d, 'n1'))).toBe(
      `${d} is writable by every user (mode 777) without the sticky bit`,
    );
    fs.chmodSync(d, 0o770);
    expect(resultsFolderProblem(d)).toBe(`${d} is writable by its group (mode 770) without the sticky bit`);
  });

  it.skipIf(!asRoot)('one owned by another user, or under a folder of theirs (root only)', () => {
    const d = tmp();
    const theirs = path.join(d, 'n1');
    fs.mkdirSync(theirs, { mode: 0o755 });
    fs.chownSync(theirs, 65534, 65534);
    expect(resultsFolderProblem(theirs)).toBe(`${theirs} belongs to uid 65534, not to us (uid 0)`);
    expect(resultsFolderProblem(path.join(theirs, 'sub'))).toBe(
      `${theirs}, a folder above it, belongs to uid 65534 (neither us nor root)`,
    );
  });

  it.skipIf(!asRoot)(
    'a lock folder someone else made inside an ours results folder: no run folder in it (root only)',
    () => {
      const d = tmp();
      fs.mkdirSync(path.join(d, 'redis'));
      fs.chownSync(path.join(d, 'redis'), 65534, 65534);
      expect(() => createRunDir(d, 'redis')).toThrow(
        /refusing to make a run folder in .*redis: .*belongs to uid 65534/,
      );
    },
  );

  it.skipIf(!asRoot)(
    '--results owned by nobody: exit 254 before anything starts, for a run, nightly, cleanup and serve (root only)',
    () => {
      const d = tmp();
      const theirs = path.join(d, 'n1');
      fs.mkdirSync(theirs, { mode: 0o777 });
      fs.chownSync(theirs, 65534, 65534);
      for (const args of [
        ['--lock=redis', '--nemesis=none', '--time-limit=1'],
        ['nightly', '--time-limit=1'],
        ['cleanup'],
        ['serve', '--port=1'],
      ]) {
        const r = spawnSync(process.execPath, ['--import', 'tsx', 'cli.ts', ...args, `--results=${theirs}`], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect({ args, code: r.status }).toEqual({ args, code: EXIT.badArguments });
        expect(r.stderr).toContain(`--results=${theirs}: refusing to write there: ${theirs} belongs to uid 65534`);
        expect(fs.readdirSync(theirs)).toEqual([]); // nothing half-started
      }
    },
    120_000,
  );
});

describe("a run's own files are readable by their owner only", () => {
  it('history.jsonl (while it is written), test.json / results.json and report.html are created 0600', async () => {
    const d = tmp();
    const run = writeRunDir(d, 'redis', '2026-12-01T00-00-00.000Z', { fenced: false });
    const mode = (f: string) => (fs.statSync(f).mode & 0o777).toString(8);
    const journal = new Journal(path.join(d, 'live.jsonl'));
    journal.append({ process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } });
    expect(mode(path.join(d, 'live.jsonl'))).toBe('600');
    await journal.close();
    writeJson(path.join(d, 'results.json'), { valid: true });
    expect(mode(path.join(d, 'results.json'))).toBe('600');
    writeReport(run);
    expect(mode(path.join(run, 'report.html'))).toBe('600');
    expect(RUN_FILE_MODE).toBe(0o600);
  });
});
