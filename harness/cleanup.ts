import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childPids, isAlive, pendingPids, PidRegistry, stillOurs } from './pid-registry.ts';

/**
 * Stop leftovers of runs that died without tearing down (kill -9, OOM, a lost terminal): every pid file under
 * the results folder whose process is still the one recorded (same pid, same start time).
 * Resume before kill, so nothing is left stopped. Then containers of the docker backend whose harness is gone.
 */
export async function cleanup(resultsDir: string, log: (line: string) => void = console.log, opts: { data?: boolean } = {}): Promise<number> {
  const registries: PidRegistry[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = path.join(dir, e.name);
      if (e.name === 'pids') registries.push(new PidRegistry(p));
      else walk(p, depth + 1);
    }
  };
  walk(path.resolve(resultsDir), 0);
  let stopped = 0;
  for (const reg of registries) {
    for (const rec of reg.list()) {
      // A pending record: the harness died between writing it and learning the pid.
      const mains = rec.pending ? pendingPids(rec) : stillOurs(rec) ? [rec.pid] : [];
      if (mains.length === 0) {
        reg.remove(rec.name);
        continue;
      }
      const pids = mains.flatMap((pid) => [pid, ...(rec.killChildren ? childPids(pid) : [])]);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      for (let i = 0; i < 50 && pids.some(isAlive); i++) await sleep(20);
      log(`stopped ${rec.name} (pid ${mains.join(', ')}${pids.length > mains.length ? ` + ${pids.length - mains.length} children` : ''}) from ${path.dirname(reg.dir)}`);
      reg.remove(rec.name);
      stopped++;
    }
  }
  // Containers of the docker backend are found by label, not pid file; loaded only here so a machine without
  // Docker pays nothing (no engine answering = no container can be left over).
  const { removeLeftoverContainers } = await import('./backends/docker/leftovers.ts');
  const containers = await removeLeftoverContainers(log);
  // The offline image builder's scratch root file systems (~420 MB each) of builds killed beyond their own clean-up.
  const { removeLeftoverRootfs } = await import('../docker/rootfs.ts');
  const rootfsBytes = removeLeftoverRootfs(log);
  // Last: the servers of those runs are stopped by now, so nothing is still writing to their data.
  const dataBytes = opts.data ? (await import('./dead-run-data.ts')).removeDeadRunData(resultsDir, log) : 0;
  const { formatMB } = await import('./disk-usage.ts');
  const parts = [
    stopped ? `stopped ${stopped} leftover process(es)` : '',
    containers ? `removed ${containers} leftover container(s)` : '',
    rootfsBytes ? `freed ${formatMB(rootfsBytes)} of interrupted image builds` : '',
    dataBytes ? `freed ${formatMB(dataBytes)} of node data of dead runs` : '',
  ].filter(Boolean);
  log(parts.length ? `cleanup: ${parts.join(', ')}.` : 'cleanup: nothing left over.');
  return stopped + containers;
}
