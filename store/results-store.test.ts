import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../common/exit-codes.ts';
import { resultsFolderProblem } from './results-store.ts';
import { parseCommandLine } from '../cli/command-line.ts';
import { HarnessError } from '../common/errors.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { createRunDir, writeJson } from './run-dir.ts';
import { Journal } from '../history/journal.ts';
import { writeReport } from '../report/report.ts';
import { writeRunDir } from '../test/support/run-dirs.ts';
import { runCli } from '../test/support/cli-run.ts';

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
    async () => {
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
        const r = await runCli(args, { results: theirs, timeoutMs: 60_000 });
        expect({ args, code: r.code }).toEqual({ args, code: EXIT.badArguments });
        expect(r.stderr).toContain(`--results=${theirs}: refusing to write there: ${theirs} belongs to uid 65534`);
        expect(fs.readdirSync(theirs)).toEqual([]); // nothing half-started
      }
    },
    120_000,
  );
});

describe('a results folder reached through a symbolic link (N5)', () => {
  it.skipIf(!asRoot)(
    "another user's link in sticky /tmp, even to a folder of ours, is refused: they could re-point it mid-run (root only)",
    () => {
      const d = tmp();
      fs.chmodSync(d, 0o1777);
      const ours = path.join(d, 'ours');
      fs.mkdirSync(ours, { mode: 0o700 });
      const link = path.join(d, 'their-link');
      fs.symlinkSync(ours, link);
      fs.lchownSync(link, 65534, 65534);
      expect(resultsFolderProblem(link)).toBe(
        `${link} is a symbolic link owned by uid 65534 (neither us nor root), who could re-point it while the run writes through it`,
      );
      expect(resultsFolderProblem(path.join(link, 'sub'))).toMatch(/is a symbolic link owned by uid 65534/);
      expect(() => parseCommandLine(['cleanup', `--results=${link}`])).toThrow(HarnessError);
    },
  );

  it('our own link is followed once: the command gets the folder it points at, never the link again', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'real'));
    fs.symlinkSync(path.join(d, 'real'), path.join(d, 'link'));
    const config = parseCommandLine(['cleanup', `--results=${path.join(d, 'link', 'runs')}`]);
    expect(config.resultsDir).toBe(path.join(d, 'real', 'runs'));
  });

  it('a link to nothing is refused, naming where it points', () => {
    const d = tmp();
    fs.symlinkSync(path.join(d, 'gone'), path.join(d, 'dangling'));
    expect(resultsFolderProblem(path.join(d, 'dangling'))).toBe(
      `${path.join(d, 'dangling')} is a symbolic link to nothing (${path.join(d, 'gone')})`,
    );
  });
});

describe('a results folder where none can be made (N16)', () => {
  it("on a pseudo file system: refused (Node's recursive mkdir spun at 100 % CPU on /proc, deaf to Ctrl-C)", async () => {
    expect(resultsFolderProblem('/proc/fp-audit')).toBe(
      '/proc is on proc, a pseudo file system: no results can be kept there',
    );
    const r = await runCli(['--lock=redis', '--nemesis=none', '--time-limit=3'], {
      results: '/proc/fp-audit',
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(EXIT.badArguments);
    expect(r.stderr).toContain('--results=/proc/fp-audit: refusing to write there: /proc is on proc');
  });

  it('under a folder we cannot write: refused before anything starts, with 254 (it crashed with 255)', async () => {
    const d = tmp();
    // Not writable for us: mode 555, or — root writes anywhere — the immutable attribute, which stops root too.
    const lock = () => (asRoot ? spawnSync('chattr', ['+i', d]).status === 0 : (fs.chmodSync(d, 0o555), true));
    const unlock = () => (asRoot ? spawnSync('chattr', ['-i', d]) : fs.chmodSync(d, 0o755));
    expect(lock(), `chattr +i ${d} (root: a folder root cannot write is an immutable one)`).toBe(true);
    try {
      expect(resultsFolderProblem(path.join(d, 'fp'))).toBe(
        `${d} is not writable by us: ${path.join(d, 'fp')} cannot be made`,
      );
      const r = await runCli(['--lock=redis', '--nemesis=none', '--time-limit=3'], {
        results: path.join(d, 'fp'),
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(EXIT.badArguments);
      expect(r.stderr).toContain(`refusing to write there: ${d} is not writable by us`);
    } finally {
      unlock();
    }
  });

  it("a run folder that cannot be made is the user's to fix (254), not a crash (255)", () => {
    const d = tmp();
    fs.writeFileSync(path.join(d, 'redis'), 'a file where the lock folder goes');
    let thrown: unknown;
    try {
      createRunDir(d, 'redis');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HarnessError);
    expect((thrown as HarnessError).exitCode).toBe(EXIT.badArguments);
    expect((thrown as Error).message).toMatch(/redis is not a folder|could not make a run folder/);
  });
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
