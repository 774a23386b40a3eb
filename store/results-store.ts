import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { lockRef } from '../workloads/lock-ref.ts';

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
  const { kind } = lockRef(lock);
  // A built-in, the matrix, or a plain word (doctor's and lock-check's own folders) is its own folder name.
  if (kind === 'builtin' || kind === 'all' || (kind === 'unknown' && /^[A-Za-z0-9_-]+$/.test(lock))) return lock;
  // A lock named by a path or a program (or anything else: never a path of folders) gets its file's name.
  return `plugin-${path
    .basename(lock)
    .replace(/\.[cm]?[jt]s$/, '')
    .replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** statfs types of pseudo file systems, where a results folder makes no sense (Node's recursive mkdir spins on proc). */
const PSEUDO_FS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0x64626720: 'debugfs',
  0x74726163: 'tracefs',
  0x73636673: 'securityfs',
  0x1cd1: 'devpts',
  0xcafe4a11: 'bpf',
};

/**
 * `dir` with every symbolic link in it resolved, once — every later write goes to this path, so a link cannot be
 * re-pointed under a run — or why it may not be used: a link owned by someone other than us or root (whoever owns a
 * link can re-point it at any moment; in sticky /tmp another user's link is theirs to swap), or a dangling one.
 * The part that does not exist yet is kept as given: we will make it.
 */
export function resolvedResultsFolder(dir: string): { real: string } | { problem: string } {
  const uid = process.getuid?.();
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  let real = path.parse(path.resolve(dir)).root;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(real, parts[i]);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(next);
    } catch {
      return { real: path.join(next, ...parts.slice(i + 1)) };
    }
    if (!st.isSymbolicLink()) {
      real = next;
      continue;
    }
    if (uid !== undefined && st.uid !== uid && st.uid !== 0)
      return {
        problem: `${next} is a symbolic link owned by uid ${st.uid} (neither us nor root), who could re-point it while the run writes through it`,
      };
    try {
      real = fs.realpathSync(next);
    } catch {
      return { problem: `${next} is a symbolic link to nothing (${fs.readlinkSync(next)})` };
    }
  }
  return { real };
}

/**
 * Why `dir` (a results folder, existing or to be made) is not safe to write a run into, or null. The rule is ssh's
 * StrictModes: the folder, when it exists, is ours; it and every existing folder above it is owned by us or by root
 * and writable by no one else — unless it has the sticky bit (/tmp), where others can add files but not rename or
 * remove ours — and every link on the way is ours or root's (resolvedResultsFolder). Otherwise whoever can write
 * there could swap the run's files under it: plant a pid file that `cleanup` then kills, make us write through their
 * symlinks, or replace what the clients load. A folder on a pseudo file system (/proc, /sys) or under one we cannot
 * write into is refused too, before anything starts.
 */
export function resultsFolderProblem(dir: string): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null; // no uids (Windows): nothing to compare
  const resolved = resolvedResultsFolder(dir);
  if ('problem' in resolved) return resolved.problem;
  const want = resolved.real;
  let deepest: string | null = null;
  for (let at = want; ; at = path.dirname(at)) {
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(at);
    } catch {
      st = null; // not made yet: we will make it, ours
    }
    if (st) {
      deepest ??= at;
      if (!st.isDirectory()) return `${at} is not a folder`;
      if (at === want && st.uid !== uid) return `${at} belongs to uid ${st.uid}, not to us (uid ${uid})`;
      if (st.uid !== uid && st.uid !== 0)
        return `${at}, a folder above it, belongs to uid ${st.uid} (neither us nor root)`;
      if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
        return `${at} is writable by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}) without the sticky bit`;
    }
    if (path.dirname(at) === at) break;
  }
  return deepest ? placeProblem(deepest, want) : null;
}

/** Whether the deepest existing folder of `want` can hold it: a real file system, and one we may write into. */
function placeProblem(deepest: string, want: string): string | null {
  try {
    const type = PSEUDO_FS[fs.statfsSync(deepest).type];
    if (type) return `${deepest} is on ${type}, a pseudo file system: no results can be kept there`;
  } catch {
    // no statfs here: nothing known against it
  }
  try {
    fs.accessSync(deepest, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return deepest === want
      ? `${want} is not writable by us`
      : `${deepest} is not writable by us: ${want} cannot be made`;
  }
  return null;
}

/**
 * `resultsFolderProblem` as the bad argument it is (254), before anything starts; otherwise the folder with its
 * links resolved, which is the one the command must use from then on.
 */
export function checkResultsFolder(dir: string): string {
  const problem = resultsFolderProblem(dir);
  if (problem)
    throw new HarnessError('bad-arguments', `--results=${dir}: refusing to write there: ${problem}.`, {
      hint:
        process.getuid?.() === 0
          ? 'as root (sudo), use a folder that root owns and only root can write, e.g. --results="$(mktemp -d)"'
          : 'use a folder of your own that only you can write, e.g. --results="$(mktemp -d)"',
    });
  return (resolvedResultsFolder(dir) as { real: string }).real;
}

export function linkLatest(resultsRoot: string, runDir: string): void {
  const link = path.join(path.resolve(resultsRoot), 'latest');
  const tmp = `${link}.${process.pid}`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(path.relative(path.dirname(link), runDir), tmp);
  // rename over the old link so `latest` never dangles or goes missing mid-update.
  fs.renameSync(tmp, link);
}
