import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The name a run's objects outside its folder get (its nftables table, its cgroups): `fencepost-<run dir's
 * name>-<hash of its real path>`, so two runs that started in the same second under different results folders never
 * share one, and `cleanup` can recompute the name from a run dir of ours instead of trusting a record that anyone
 * could have written.
 */
export function runObjectName(runDir: string): string {
  const real = fs.existsSync(runDir) ? fs.realpathSync(runDir) : path.resolve(runDir);
  const base = path
    .basename(real)
    .replace(/[^A-Za-z0-9_-]/g, '')
    .slice(0, 40);
  return `fencepost-${base}-${createHash('sha256').update(real).digest('hex').slice(0, 8)}`;
}
