import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processesUsing } from '../common/dir-in-use.ts';
import { diskUsage, formatMB } from '../common/disk-usage.ts';
import { MEMORY_DIR } from '../common/memory-dir.ts';
import { DATA_ELSEWHERE, dataElsewhereOf } from '../cluster/server-node.ts';
import { notOurs } from '../common/ownership.ts';
import { runOwner } from '../common/run-owner.ts';
import { RUN_FILES, runPath } from '../store/run-dir.ts';

/** Run dirs with node data left in them: folders holding a `nodes/` folder, up to 4 levels under the results. */
function runDirsWithData(resultsDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // Symlinks (`latest`) are not followed: every run is reached once, by its real folder.
    if (entries.some((e) => e.isDirectory() && e.name === RUN_FILES.nodes)) out.push(dir);
    else if (depth < 4) for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name), depth + 1);
  };
  walk(path.resolve(resultsDir), 0);
  return out;
}

/**
 * Folders a node moved its data to (Postgres's: a private folder in the memory folder, or under the OS temp dir
 * when the postgres user can't enter the run dir). Only `fencepost-*` folders directly in one of those two are
 * taken: the marker file is not trusted to name anything else.
 */
function dataElsewhere(nodesDir: string): string[] {
  const out: string[] = [];
  for (const node of fs.readdirSync(nodesDir)) {
    // The node folder belongs to the server's account, which could write a marker of its own: only ours counts,
    // and only when it names a real folder (not a symlink) of ours directly in the temp dir.
    if (notOurs(path.join(nodesDir, node, DATA_ELSEWHERE), 'file')) continue;
    const target = dataElsewhereOf(path.join(nodesDir, node));
    // No marker: the data is in the node folder.
    if (target === null) continue;
    try {
      if (
        [os.tmpdir(), MEMORY_DIR].includes(path.dirname(target)) &&
        path.basename(target).startsWith('fencepost-') &&
        fs.lstatSync(target).isDirectory()
      )
        out.push(target);
    } catch {
      // the folder it names is gone
    }
  }
  return out;
}

/**
 * `cleanup --data`: remove the node data (`<run>/nodes/`, and data kept outside the run dir) of runs whose
 * harness is gone — a run that ends normally removes its own; a kill -9 leaves ~40 MB per run. Histories,
 * logs and reports stay. A run with no owner record (from before it existed) is taken as gone when no process works in it.
 * Returns the bytes freed.
 */
export function removeDeadRunData(resultsDir: string, log: (line: string) => void): number {
  let freed = 0;
  for (const runDir of runDirsWithData(resultsDir)) {
    const owner = runOwner(runDir);
    if (owner === 'alive') continue;
    if (owner === 'unknown' && processesUsing(runDir).length) continue;
    const nodes = runPath(runDir, 'nodes');
    const why = notOurs(runDir, 'dir');
    if (why) {
      log(`left alone: the node data of ${runDir} (the run folder ${why})`);
      continue;
    }
    const dirs = [nodes, ...dataElsewhere(nodes)];
    const bytes = dirs.reduce((sum, d) => sum + diskUsage(d), 0);
    try {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    } catch (err) {
      const code = (err as { code?: string }).code;
      log(
        `could not remove the node data of ${runDir}: ${(err as Error).message}${code === 'EACCES' || code === 'EPERM' ? ' — a run as root left it; run cleanup --data as root' : ''}`,
      );
      continue;
    }
    freed += bytes;
    log(`removed the node data of ${runDir} (${formatMB(bytes)})`);
  }
  return freed;
}
