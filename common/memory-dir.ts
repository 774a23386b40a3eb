import fs from 'node:fs';

/**
 * A memory-backed folder (tmpfs) for server data that a run throws away when it ends. Postgres's data dir goes
 * there (cluster/servers/pg-node.ts): on this project's 2-core CI machine `initdb` took 1.0–1.2 s on ext4 (0.9 s of
 * it in the kernel, opening and writing ~1 500 files) and 0.43 s on tmpfs, and a run's cluster is ready ~0.9 s
 * sooner. Postgres already runs with `fsync=off` (its durability across an OS crash is not under test), so memory
 * changes nothing it promises; etcd's and ZooKeeper's data stay on disk, where their fsyncs are part of the lock's
 * measured latency.
 */
export const MEMORY_DIR = '/dev/shm';

/** statfs(2)'s f_type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;

/**
 * Free space below which the folder is not used: a container's default /dev/shm is 64 MB, and a Postgres data dir
 * is ~40 MB before the run writes anything.
 */
export const MEMORY_DIR_MIN_FREE_BYTES = 512 * 1024 * 1024;

/** What decides whether a folder can take a run's data: as `fs.statfsSync` and `fs.accessSync` see it. */
export interface FolderFacts {
  /** statfs f_type. */
  type: number;
  /** Bytes an unprivileged writer may still use (bavail × bsize). */
  freeBytes: number;
  writable: boolean;
}

/** Why the folder can't take a run's data, or null when it can. Pure: literal facts in, a reason out. */
export function memoryDirRefusal(facts: FolderFacts | null): string | null {
  if (!facts) return `${MEMORY_DIR} does not exist`;
  if (facts.type !== TMPFS_MAGIC) return `${MEMORY_DIR} is not a tmpfs`;
  if (!facts.writable) return `${MEMORY_DIR} is not writable`;
  if (facts.freeBytes < MEMORY_DIR_MIN_FREE_BYTES)
    return `${MEMORY_DIR} has ${Math.round(facts.freeBytes / 2 ** 20)} MB free, under ${MEMORY_DIR_MIN_FREE_BYTES / 2 ** 20} MB`;
  return null;
}

function folderFacts(dir: string): FolderFacts | null {
  try {
    if (!fs.statSync(dir).isDirectory()) return null;
    const s = fs.statfsSync(dir);
    let writable = true;
    try {
      fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    } catch {
      writable = false;
    }
    return { type: s.type, freeBytes: s.bavail * s.bsize, writable };
  } catch {
    return null;
  }
}

/** The memory folder when this machine has a usable one (Linux's /dev/shm, tmpfs, writable, ≥ 512 MB free), else null. */
export function memoryDir(): string | null {
  return memoryDirRefusal(folderFacts(MEMORY_DIR)) === null ? MEMORY_DIR : null;
}
