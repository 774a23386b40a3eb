import fs from 'node:fs';
import path from 'node:path';
import { isAlive, startTime } from './pid-registry.ts';

/**
 * The harness process that owns a run dir, and the folders outside it that the run created (Postgres's data dir
 * goes under the OS temp dir when the run dir is private to root). Written into the run's pid folder when the run
 * starts, before anything is spawned, so `cleanup` can tell a run that is still going (leave it alone) from one
 * whose harness is gone (stop what it left), and knows the only folders where its processes may be looked for.
 */
export interface RunOwner {
  pid: number;
  /** /proc/<pid>/stat start time: pid + start time name one process for the life of the machine. */
  startTime: number;
  /** Absolute folders outside the run dir that the run created and where its servers may work. */
  dirs: string[];
}

/** The file name inside the pid folder; not `.json`, so it is never read as a pid record. */
export const OWNER_FILE = 'harness.owner';

/** Prefix of every temp folder a run creates (mkdtemp): a recorded folder without it is not one of ours. */
export const RUN_TEMP_PREFIX = 'fencepost-';

export function writeOwner(pidsDir: string, owner: RunOwner): void {
  const file = path.join(pidsDir, OWNER_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(owner));
  fs.renameSync(`${file}.tmp`, file);
}

/** The recorded owner, or null when there is none or it is not a well-formed record (garbled = unknown). */
export function readOwner(pidsDir: string): RunOwner | null {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(pidsDir, OWNER_FILE), 'utf8'));
  } catch {
    return null;
  }
  const o = raw as Partial<RunOwner> | null;
  if (!o || !Number.isInteger(o.pid) || (o.pid as number) <= 0 || !Number.isFinite(o.startTime)) return null;
  return {
    pid: o.pid as number,
    startTime: o.startTime as number,
    dirs: Array.isArray(o.dirs) ? o.dirs.filter((d): d is string => typeof d === 'string') : [],
  };
}

/** Whether the harness that wrote `owner` still runs: same pid *and* same start time (pids are reused). */
export function ownerAlive(owner: RunOwner): boolean {
  return startTime(owner.pid) === owner.startTime && isAlive(owner.pid);
}

/**
 * The folders a run's processes may work in: its run dir, and each recorded temp folder that really is one
 * (absolute, named with our prefix, not the root nor an ancestor of the run dir). A broad folder written into the
 * file by mistake or by hand (`/`, the results folder) is dropped, so cleanup never searches it.
 */
export function runDirs(runDir: string, owner: RunOwner): string[] {
  const own = path.resolve(runDir);
  const temp = owner.dirs.filter(
    (d) =>
      path.isAbsolute(d) && path.normalize(d) === d && path.basename(d).startsWith(RUN_TEMP_PREFIX) && !within(own, d),
  );
  return [own, ...temp];
}

/** `file` is `dir` or below it. */
export function within(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** Record this process as the run's harness; call once, right after the run dir exists and before any spawn. */
export function claimRun(pidsDir: string): void {
  fs.mkdirSync(pidsDir, { recursive: true });
  writeOwner(pidsDir, { pid: process.pid, startTime: startTime(process.pid) ?? 0, dirs: [] });
}

/** Record a folder outside the run dir that the run just created (mkdtemp) and where a server will work. */
export function recordRunTempDir(pidsDir: string, dir: string): void {
  const owner = readOwner(pidsDir);
  if (!owner) return; // a run that never claimed its dir (a test's own cluster): nothing for cleanup to widen
  writeOwner(pidsDir, { ...owner, dirs: [...new Set([...owner.dirs, path.resolve(dir)])] });
}

/** The pid folder of a run dir, where the owner record lives beside the pid records. */
export const PIDS_DIR = 'pids';

/**
 * Whether the harness of the run in `runDir` still runs. 'unknown': no owner record (a run from before the record
 * existed, or a test's own cluster) — the caller decides by other means (is any process working in the folder?).
 * A kill -9ed harness not yet reaped is a zombie: `ownerAlive` counts it as gone.
 */
export function runOwner(runDir: string): 'alive' | 'gone' | 'unknown' {
  const owner = readOwner(path.join(runDir, PIDS_DIR));
  if (!owner) return 'unknown';
  return ownerAlive(owner) ? 'alive' : 'gone';
}
