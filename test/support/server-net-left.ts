import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cgroup2Mount } from '../../common/cgroup2.ts';
import { netName } from '../../nemesis/server-partition/server-net.ts';

/**
 * A run's nftables table and cgroup, if either still exists: what every way out of a run with a server partition must
 * remove (the server-partition test files).
 */
export function netLeft(runDir: string): string[] {
  const name = netName(runDir);
  const left: string[] = [];
  const tables = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });
  if (tables.split('\n').some((l) => l.trim() === `table inet ${name}`)) left.push(`table inet ${name}`);
  const mount = cgroup2Mount(fs.readFileSync('/proc/self/mounts', 'utf8'));
  if (mount && fs.existsSync(path.join(mount, name))) left.push(path.join(mount, name));
  return left;
}
