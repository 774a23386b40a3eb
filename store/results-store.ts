import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';

/**
 * The results folder: `results/<lock>/<timestamp>/` per run (its files: store/run-dir.ts) and a
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

export function linkLatest(resultsRoot: string, runDir: string): void {
  const link = path.join(path.resolve(resultsRoot), 'latest');
  const tmp = `${link}.${process.pid}`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(path.relative(path.dirname(link), runDir), tmp);
  // rename over the old link so `latest` never dangles or goes missing mid-update.
  fs.renameSync(tmp, link);
}
