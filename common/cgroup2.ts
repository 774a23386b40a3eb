/**
 * The cgroup2 file system, as the run uses it: a folder per group of processes that must be stopped, resumed or
 * killed as one (a server for its partitions, a client's lock processes for pauses). A process's children start in
 * its cgroup and cannot leave it without write access to another one's `cgroup.procs` — a `setsid` or a double fork
 * changes its process group, not its cgroup — so what is in the folder is the whole tree.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Where the kernel's cgroup file systems are mounted (and where `nft` resolves `socket cgroupv2` paths from). */
export const CGROUP_FS = '/sys/fs/cgroup';

/** The cgroup2 mount, when it lies under /sys/fs/cgroup (nft resolves paths only there); null otherwise. Pure. */
export function cgroup2Mount(mounts: string): string | null {
  for (const line of mounts.split('\n')) {
    const [, where, type] = line.split(' ');
    if (type === 'cgroup2' && (where === CGROUP_FS || where?.startsWith(`${CGROUP_FS}/`))) return where;
  }
  return null;
}

/** This host's cgroup2 mount (see cgroup2Mount), or null. */
export function hostCgroup2Mount(): string | null {
  try {
    return cgroup2Mount(fs.readFileSync('/proc/self/mounts', 'utf8'));
  } catch {
    return null;
  }
}

/** Every process in a cgroup and the cgroups below it (empty when it is gone). */
export function cgroupPids(dir: string): number[] {
  const out: number[] = [];
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
    for (const pid of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (pid) out.push(+pid);
  } catch {
    return out;
  }
  for (const e of entries) if (e.isDirectory()) out.push(...cgroupPids(path.join(dir, e.name)));
  return out;
}

/**
 * Freeze (`true`) or thaw a cgroup and everything below it. The kernel stops every task of the cgroup at once — a
 * child forked a moment ago included, and any process that enters it later — and says when it is done in
 * `cgroup.events` (cgroupFrozen). Frozen tasks show `S` in /proc, not `T`: the cgroup's word is the evidence.
 */
export function freezeCgroup(dir: string, frozen: boolean): boolean {
  try {
    fs.writeFileSync(path.join(dir, 'cgroup.freeze'), frozen ? '1' : '0');
    return true;
  } catch {
    return false;
  }
}

/** Whether every task of the cgroup (and below) is frozen, by `cgroup.events`; false when it cannot be read. */
export function cgroupFrozen(dir: string): boolean {
  try {
    return /^frozen 1$/m.test(fs.readFileSync(path.join(dir, 'cgroup.events'), 'utf8'));
  } catch {
    return false;
  }
}

/**
 * SIGKILL every process of a cgroup and below: `cgroup.kill` (Linux 5.14) kills them all at once, frozen or not, so
 * a process forking as it is killed cannot leave a child behind; on an older kernel each listed pid gets
 * SIGCONT + SIGKILL. Synchronous, so it can run in an `exit` handler.
 */
export function killCgroup(dir: string): void {
  try {
    fs.writeFileSync(path.join(dir, 'cgroup.kill'), '1');
    return;
  } catch {
    // no cgroup.kill (or the folder is gone): one by one
  }
  for (const pid of cgroupPids(dir)) {
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Kill what is still in a cgroup of ours and remove it with the cgroups below it; false when it could not be removed
 * within ~2 s (its killed processes not yet reaped by their parents: a removal waits for that).
 */
export function removeCgroup(dir: string): boolean {
  if (!fs.existsSync(dir)) return true;
  killCgroup(dir);
  let ok = true;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !removeCgroup(path.join(dir, e.name))) ok = false;
  }
  for (let i = 0; i < 100; i++) {
    try {
      fs.rmdirSync(dir);
      return ok;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok;
      // EBUSY while the killed processes are reaped.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  return false;
}

/**
 * The argv that runs `argv` inside the cgroup folder `dir`: a shell moves itself there and execs it, so the pid is the
 * one spawn returned and everything it forks starts in the cgroup. The paths are arguments, never shell text.
 */
export function inCgroupArgv(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, ...argv];
}
