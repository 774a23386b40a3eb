import fs from 'node:fs';
import path from 'node:path';

/**
 * Bytes a folder takes on disk (allocated blocks, like `du`), without following symlinks or crossing into other
 * file systems (a debootstrap root may still have /proc mounted). Unreadable parts count as 0.
 */
export function diskUsage(dir: string): number {
  let dev: number;
  try {
    dev = fs.lstatSync(dir).dev;
  } catch {
    return 0;
  }
  let total = 0;
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    if (st.dev !== dev) return;
    total += st.blocks * 512;
    if (!st.isDirectory()) return;
    let entries: string[];
    try {
      entries = fs.readdirSync(p);
    } catch {
      return;
    }
    for (const e of entries) walk(path.join(p, e));
  };
  walk(dir);
  return total;
}

/** "424.3 MB" — the unit people compare with `du -sh` and `df -h`. */
export function formatMB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
