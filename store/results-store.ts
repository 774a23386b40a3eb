import fs from 'node:fs';
import path from 'node:path';
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

export function createRunDir(resultsRoot: string, lock: string, date = new Date()): string {
  const base = path.join(path.resolve(resultsRoot), lockFolderName(lock), runTimestamp(date));
  let dir = base;
  // Two runs in the same millisecond (a matrix on a fast machine) must not share a folder.
  for (let i = 1; fs.existsSync(dir); i++) dir = `${base}-${i}`;
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
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

export function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
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
