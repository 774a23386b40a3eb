import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processesUsing } from '../../common/dir-in-use.ts';
import { diskUsage, formatMB } from '../../common/disk-usage.ts';
import { notOurs } from '../../common/ownership.ts';
import { isAlive, startTime, stillOurs } from '../../common/pid-registry.ts';

/**
 * The offline builder's scratch folder, `/var/tmp/fencepost-rootfs-XXXXXX/`: `builder.json` (pid and start time
 * of the process building) and `root/`, the debootstrap target (~420 MB). The owner record lets `cleanup` tell a
 * build in progress from one that was interrupted beyond its own clean-up (kill -9, a lost terminal).
 */
export const ROOTFS_PREFIX = 'fencepost-rootfs-';
const BUILDER_FILE = 'builder.json';

/** Not under /tmp: debootstrap needs a file system that allows device nodes and exec (tmpfs may be noexec). */
export function rootfsParent(): string {
  return os.platform() === 'linux' ? '/var/tmp' : os.tmpdir();
}

export interface Scratch {
  dir: string;
  root: string;
}

export function createScratch(parent = rootfsParent()): Scratch {
  const dir = fs.mkdtempSync(path.join(parent, ROOTFS_PREFIX));
  // The marker `cleanup` takes as proof the folder is ours: created here (never over an existing file), private.
  fs.writeFileSync(
    path.join(dir, BUILDER_FILE),
    JSON.stringify({ pid: process.pid, startTime: startTime(process.pid) }),
    { mode: 0o600, flag: 'wx' },
  );
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  return { dir, root };
}

/** Mount points at or below `dir`, deepest first (debootstrap mounts proc and sys in its target while it works). */
function mountsUnder(dir: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  // Field 5 is the mount point, with space, tab, newline and backslash as octal escapes.
  const points = text
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter(Boolean)
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  return points.filter((p) => p === dir || p.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
}

/**
 * Unmount whatever is mounted inside, then remove the folder. Never recurses into a mount: a still-mounted
 * /proc or /sys under it would otherwise be "removed" file by file. Throws, saying what is left, if it can't.
 */
export function removeScratch(dir: string): void {
  for (const point of mountsUnder(dir)) {
    try {
      execFileSync('umount', ['-l', point], { stdio: 'ignore' });
    } catch {
      throw new Error(
        `${point} is mounted and umount failed; unmount it as root (umount -l ${point}), then rm -rf ${dir}`,
      );
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Whether the process that created the scratch folder still runs (a folder from before the record counts as gone). */
function builderAlive(dir: string): boolean {
  try {
    const rec = JSON.parse(fs.readFileSync(path.join(dir, BUILDER_FILE), 'utf8')) as {
      pid: number;
      startTime?: number;
    };
    // isAlive: a killed builder its parent hasn't reaped yet is a zombie, still in /proc with its start time.
    return (
      stillOurs({ name: 'builder', pid: rec.pid, marker: dir, startTime: rec.startTime ?? undefined }) &&
      isAlive(rec.pid)
    );
  } catch {
    return false;
  }
}

/**
 * Remove scratch folders whose builder is gone and that no process works in (a debootstrap orphaned by a kill -9
 * of its builder keeps writing there until it ends). Returns the bytes freed.
 */
export function removeLeftoverRootfs(log: (line: string) => void, parent = rootfsParent()): number {
  let entries: string[];
  try {
    entries = fs.readdirSync(parent).filter((e) => e.startsWith(ROOTFS_PREFIX));
  } catch {
    return 0;
  }
  let freed = 0;
  for (const name of entries) {
    const dir = path.join(parent, name);
    // Only a folder of this user's, with the private marker one of our builds wrote: the prefix alone is a name
    // any local user can take (as root, removing their folder would be removing what they point it at).
    const why =
      notOurs(dir, 'dir', { private: true }) ?? notOurs(path.join(dir, BUILDER_FILE), 'file', { private: true });
    if (why) {
      log(`left alone: ${dir} (${why}) — not a build of ours`);
      continue;
    }
    if (builderAlive(dir)) continue;
    const users = processesUsing(dir);
    if (users.length) {
      log(
        `kept ${dir}: its builder is gone but pid ${users.join(', ')} still works in it; run cleanup again when that ends`,
      );
      continue;
    }
    const bytes = diskUsage(dir);
    try {
      removeScratch(dir);
    } catch (err) {
      const denied = (err as { code?: string }).code === 'EACCES' || (err as { code?: string }).code === 'EPERM';
      log(
        `could not remove ${dir}: ${(err as Error).message}${denied ? ' — it was built as root; run cleanup as root' : ''}`,
      );
      continue;
    }
    freed += bytes;
    log(`removed ${dir} (${formatMB(bytes)}), the root file system of an image build that was interrupted`);
  }
  return freed;
}
