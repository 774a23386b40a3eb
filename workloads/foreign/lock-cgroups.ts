/**
 * The cgroup2 folder a run's lock processes live in — `<cgroup2>/<run object name>-locks`, one folder below it per
 * client slot (or per lock-check process) — so a pause freezes a lock process's whole tree and a kill or a teardown
 * leaves nothing of it (lock-tree.ts). Recorded in the run's pid folder before it exists, so `cleanup` after kill -9
 * kills what is in it and removes it, under the name recomputed from the run dir (never a name the record says).
 */
import fs from 'node:fs';
import path from 'node:path';
import { hostCgroup2Mount, removeCgroup } from '../../common/cgroup2.ts';
import { runObjectName } from '../../common/run-object-name.ts';
import type { LockTree } from './lock-tree.ts';

/** The record in the run's pid folder that names its lock cgroup. */
export const LOCK_CGROUP_FILE = 'lock-cgroup.record';

/** The folder a run's lock cgroup has on this host (whether or not it exists), or null without a cgroup2 mount. */
function lockCgroupDir(runDir: string): string | null {
  const mount = hostCgroup2Mount();
  return mount ? path.join(mount, `${runObjectName(runDir)}-locks`) : null;
}

/**
 * Why a run's lock processes cannot have a cgroup here (then each is its process group), or null when they can.
 * Making a cgroup below the cgroup2 root takes root.
 */
export function lockCgroupsMissing(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (!hostCgroup2Mount()) return 'no cgroup2 file system is mounted under /sys/fs/cgroup';
  if (process.getuid?.() !== 0) return 'not root (a cgroup below the cgroup2 root takes root)';
  return null;
}

export class LockCgroups {
  private constructor(readonly dir: string) {}

  /**
   * The run's lock cgroup, or why there is none (the caller falls back to process groups and says so). Never throws:
   * a host where the folder cannot be made still runs, with the weaker hold.
   */
  static create(runDir: string, pidsDir: string): LockCgroups | string {
    const missing = lockCgroupsMissing();
    if (missing) return missing;
    const dir = lockCgroupDir(runDir)!;
    try {
      fs.writeFileSync(path.join(pidsDir, LOCK_CGROUP_FILE), JSON.stringify({ cgroup: dir }));
      fs.mkdirSync(dir);
      return new LockCgroups(dir);
    } catch (err) {
      removeCgroup(dir);
      return `could not make ${dir}: ${(err as Error).message}`;
    }
  }

  /** The tree of `name` (a client slot, a lock-check process): its folder, made on first use. */
  treeFor(name: string): Extract<LockTree, { by: 'cgroup' }> {
    const dir = path.join(this.dir, name.replace(/[^A-Za-z0-9_-]/g, ''));
    if (!fs.existsSync(dir)) fs.mkdirSync(dir);
    return { by: 'cgroup', dir };
  }

  /** Kill whatever is left in it and remove it; what could not be removed, or null. */
  dispose(pidsDir: string): string | null {
    if (!removeCgroup(this.dir)) return `could not remove the lock processes' cgroup ${this.dir} (still busy)`;
    fs.rmSync(path.join(pidsDir, LOCK_CGROUP_FILE), { force: true });
    return null;
  }
}

/**
 * `cleanup` for a run whose harness is gone: kill what is left in its lock cgroup and remove it — only the folder
 * the run dir's own name gives, and only when the run recorded one. How many cgroups it removed (0 or 1).
 */
export function removeLeftoverLockCgroup(runDir: string, pidsDir: string, log: (line: string) => void): number {
  const file = path.join(pidsDir, LOCK_CGROUP_FILE);
  if (!fs.existsSync(file)) return 0;
  const dir = lockCgroupDir(runDir);
  let recorded: unknown;
  try {
    recorded = (JSON.parse(fs.readFileSync(file, 'utf8')) as { cgroup?: unknown }).cgroup;
  } catch {
    recorded = undefined;
  }
  if (!dir || recorded !== dir) {
    log(`left alone: ${file} names ${String(recorded)}, not this run's lock cgroup ${String(dir)}: not ours`);
    return 0;
  }
  const existed = fs.existsSync(dir);
  if (!removeCgroup(dir)) {
    log(`cleanup: could not remove the lock cgroup ${dir} of ${runDir} (still busy)`);
    return 0;
  }
  fs.rmSync(file, { force: true });
  if (existed) log(`removed the lock processes' cgroup ${dir} (and what was in it) of ${runDir}`);
  return existed ? 1 : 0;
}
