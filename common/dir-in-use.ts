import fs from 'node:fs';

/**
 * Processes that are working on `dir`: their working directory or root is in it, or their command line names
 * it (debootstrap and the dpkg it runs in the chroot). A folder with no record of its owner may be removed only
 * when this is empty.
 */
export function processesUsing(dir: string): number[] {
  const inside = (p: string) => p === dir || p.startsWith(`${dir}/`);
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const links = ['cwd', 'root'].map((l) => {
        try {
          return fs.readlinkSync(`/proc/${entry}/${l}`);
        } catch {
          return '';
        }
      });
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (links.some(inside) || cmd.some((arg) => arg.includes(dir))) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}
