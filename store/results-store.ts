import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { claimRun, PIDS_DIR } from '../common/run-owner.ts';

/**
 * `results/<lock>/<timestamp>/{test.json, history.jsonl, results.json, report.html, logs/}` and a
 * `results/latest` link to the newest run. Timestamps are UTC and sortable; colons are replaced so the
 * folder names are valid everywhere.
 */
export function runTimestamp(date = new Date()): string {
  return date.toISOString().replace(/:/g, '-');
}

/** A plugin path is not a folder name: `./my/lock.ts` → `plugin-lock`. */
export function lockFolderName(lock: string): string {
  if (/[/\\.]/.test(lock))
    return `plugin-${path
      .basename(lock)
      .replace(/\.[cm]?[jt]s$/, '')
      .replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return lock;
}

/**
 * Why `dir` (a results folder, existing or to be made) is not safe to write a run into, or null. The rule is ssh's
 * StrictModes: the folder, when it exists, is ours; it and every existing folder above it is owned by us or by root
 * and writable by no one else — unless it has the sticky bit (/tmp), where others can add files but not rename or
 * remove ours. Otherwise whoever can write there could swap the run's files under it: plant a pid file that
 * `cleanup` then kills, make us write through their symlinks, or replace what the clients load.
 */
export function resultsFolderProblem(dir: string): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null; // no uids (Windows): nothing to compare
  const want = path.resolve(dir);
  for (let at = want; ; at = path.dirname(at)) {
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(at); // follows a link: what matters is the folder written into (results/latest-style links)
    } catch {
      st = null; // not made yet: we will make it, ours
    }
    if (st) {
      if (!st.isDirectory()) return `${at} is not a folder`;
      if (at === want && st.uid !== uid) return `${at} belongs to uid ${st.uid}, not to us (uid ${uid})`;
      if (st.uid !== uid && st.uid !== 0)
        return `${at}, a folder above it, belongs to uid ${st.uid} (neither us nor root)`;
      if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
        return `${at} is writable by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}) without the sticky bit`;
    }
    if (path.dirname(at) === at) return null;
  }
}

/** `resultsFolderProblem` as the bad argument it is (254), before anything starts. */
export function checkResultsFolder(dir: string): void {
  const problem = resultsFolderProblem(dir);
  if (problem)
    throw new HarnessError('bad-arguments', `--results=${dir}: refusing to write there: ${problem}.`, {
      hint: 'use a folder of your own that only you can write, e.g. --results="$(mktemp -d)"',
    });
}

export function createRunDir(resultsRoot: string, lock: string, date = new Date()): string {
  const base = path.join(path.resolve(resultsRoot), lockFolderName(lock), runTimestamp(date));
  let dir = base;
  // A lock folder made by someone else (while the results folder was open to them) is as foreign as the results.
  const lockDir = path.dirname(base);
  fs.mkdirSync(lockDir, { recursive: true });
  const problem = resultsFolderProblem(lockDir);
  if (problem) throw new HarnessError('run-dir', `refusing to make a run folder in ${lockDir}: ${problem}.`);
  // Two runs in the same millisecond (a matrix on a fast machine) must not share a folder: mkdir without
  // `recursive` fails on one that exists, so the second takes the next name.
  for (let i = 1; ; i++) {
    try {
      fs.mkdirSync(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      dir = `${base}-${i}`;
    }
  }
  fs.mkdirSync(path.join(dir, 'logs'));
  // The harness owns the run from its first moment: `cleanup` leaves a run alone while this process lives.
  claimRun(path.join(dir, PIDS_DIR));
  linkLatest(resultsRoot, dir);
  return dir;
}

export function linkLatest(resultsRoot: string, runDir: string): void {
  const link = path.join(path.resolve(resultsRoot), 'latest');
  const tmp = `${link}.${process.pid}`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(path.relative(path.dirname(link), runDir), tmp);
  // rename over the old link so `latest` never dangles or goes missing mid-update.
  fs.renameSync(tmp, link);
}

/**
 * The mode a run's own files are created with (history.jsonl, test.json, results.json, report.html, logs/*):
 * readable by their owner only. A live history is a real-time feed of who holds the lock and when each fault
 * starts — on a shared machine, enough to steer a verdict. The umask can only take bits away; to share a run,
 * chmod its files (or copy them) yourself.
 */
export const RUN_FILE_MODE = 0o600;

export function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`, {
    mode: RUN_FILE_MODE,
  });
}

/** Every run dir under the results root (folders holding a test.json), newest first. */
export function listRunDirs(resultsRoot: string): string[] {
  const root = path.resolve(resultsRoot);
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  for (const lock of fs.readdirSync(root, { withFileTypes: true })) {
    if (!lock.isDirectory() || lock.isSymbolicLink()) continue;
    for (const run of fs.readdirSync(path.join(root, lock.name), { withFileTypes: true })) {
      const dir = path.join(root, lock.name, run.name);
      if (run.isDirectory() && fs.existsSync(path.join(dir, 'test.json'))) out.push(dir);
    }
  }
  return out.sort((a, b) => path.basename(b).localeCompare(path.basename(a)));
}
