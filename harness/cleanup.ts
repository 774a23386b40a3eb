import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childPids, isAlive, pendingPids, PidRegistry, stillOurs, type PidRecord } from '../common/pid-registry.ts';
import { notOurs } from '../common/ownership.ts';
import { removeLeftoverNet } from '../nemesis/server-partition/server-net.ts';
import { removeLeftoverPolicy } from '../cluster/apt-session.ts';
import { removeLeftoverLockCgroup } from '../workloads/foreign/lock-cgroups.ts';
import { treePids } from '../workloads/foreign/lock-tree.ts';
import { OWNER_FILE, ownerAlive, readOwner, runDirs, within } from '../common/run-owner.ts';
import { RUN_FILES } from '../store/run-dir.ts';
import { healLeftoverInjections } from '../target/guard-leftovers.ts';

/**
 * Stop leftovers of runs that died without tearing down (kill -9, OOM, a lost terminal). Only runs whose harness
 * is gone (its pid + start time, recorded when the run started, no longer name a live process): a run still
 * going is reported and left alone. In such a run, every pid record whose process is still the one recorded
 * (same pid, same start time), and every pending record's process — looked for only inside the run's own
 * folders. Resume before kill, so nothing is left stopped. Then containers of the docker backend whose harness
 * is gone, and the nftables table and cgroups of their server partitions (named from the run dir, so a record
 * cannot point cleanup at anyone else's). Says what it stopped and what it left alone. Before its processes, a dead
 * run's injections its guard folder still holds armed are healed (target/guard-leftovers.ts).
 */
export async function cleanup(
  resultsDir: string,
  log: (line: string) => void = console.log,
  /** `unhealed` collects a line for each injection whose heal failed: the caller's exit says so (audit R3/R7). */
  opts: { data?: boolean; unhealed?: string[] } = {},
): Promise<number> {
  const unhealed = opts.unhealed ?? [];
  const tally = { stopped: 0, leftAlone: 0, netObjects: 0, healed: 0 };
  for (const reg of pidRegistriesUnder(resultsDir)) {
    const one = await cleanupRun(reg, log, unhealed);
    for (const k of Object.keys(tally) as (keyof typeof tally)[]) tally[k] += one[k];
  }
  const { stopped, leftAlone, netObjects, healed } = tally;
  // Containers of the docker backend are found by label, not pid file; loaded only here so a machine without
  // Docker pays nothing (no engine answering = no container can be left over).
  const { removeLeftoverContainers } = await import('../cluster/docker/leftovers.ts');
  const containers = await removeLeftoverContainers(log);
  // The offline image builder's scratch root file systems (~420 MB each) of builds killed beyond their own clean-up.
  const { removeLeftoverRootfs } = await import('../cluster/docker/rootfs.ts');
  const rootfsBytes = removeLeftoverRootfs(log);
  // A policy-rc.d a provisioning left when it was killed mid-install (its harness gone, no apt running now).
  const policy = removeLeftoverPolicy(log);
  // Last: the servers of those runs are stopped by now, so nothing is still writing to their data.
  const dataBytes = opts.data ? (await import('./dead-run-data.ts')).removeDeadRunData(resultsDir, log) : 0;
  const { formatMB } = await import('../common/disk-usage.ts');
  const parts = [
    healed ? `healed ${healed} injection(s) left armed on a target's servers` : '',
    stopped ? `stopped ${stopped} leftover process(es)` : '',
    containers ? `removed ${containers} leftover container(s)` : '',
    netObjects ? `removed ${netObjects} nftables table(s) and cgroup(s) of server partitions and lock processes` : '',
    rootfsBytes ? `freed ${formatMB(rootfsBytes)} of interrupted image builds` : '',
    policy ? 'removed a policy-rc.d of an interrupted install' : '',
    dataBytes ? `freed ${formatMB(dataBytes)} of node data of dead runs` : '',
  ].filter(Boolean);
  const aloneNote = leftAlone ? `left ${leftAlone} run(s) alone` : '';
  log(
    parts.length
      ? `cleanup: ${[...parts, aloneNote].filter(Boolean).join(', ')}.`
      : unhealed.length
        ? `cleanup: nothing else left over${aloneNote ? ` (${aloneNote})` : ''}.`
        : `cleanup: nothing left over${aloneNote ? ` (${aloneNote})` : ''}.`,
  );
  // Last and loud: a server a dead run left stopped is the one thing here that harms someone (issue 49's rerun:
  // a heal that failed read "could not heal …", then "cleanup: nothing left over.", exit 0).
  for (const line of unhealed) log(`cleanup: TARGET LEFT FAULTED: ${line}`);
  return stopped + containers + healed;
}

/**
 * One run's leftovers, found by its pid folder: nothing when another user made it or its harness lives; else what
 * its guard left armed on a target, its lock processes' cgroup, its processes, its server network.
 */
async function cleanupRun(
  reg: PidRegistry,
  log: (line: string) => void,
  unhealed: string[],
): Promise<{ stopped: number; leftAlone: number; netObjects: number; healed: number }> {
  const done = { stopped: 0, leftAlone: 0, netObjects: 0, healed: 0 };
  const runDir = path.dirname(reg.dir);
  // A pid folder or harness record another user made would let them name any process for us to kill.
  const foreign = notOurs(reg.dir, 'dir') ?? notOurs(path.join(reg.dir, OWNER_FILE), 'file');
  if (foreign && fs.existsSync(path.join(reg.dir, OWNER_FILE))) {
    log(`left alone: ${runDir} (its pid records: ${foreign}) — not a run of ours`);
    return { ...done, leftAlone: 1 };
  }
  const records = reg.list();
  const owner = readOwner(reg.dir);
  if (owner && ownerAlive(owner)) {
    log(`running, left alone: ${runDir} (its harness, pid ${owner.pid}, is alive)`);
    return { ...done, leftAlone: 1 };
  }
  // First what its guard left armed on a target's servers: a server stopped by a run that died stays stopped.
  if (owner) {
    const left = await healLeftoverInjections(runDir, log);
    done.healed = left.healed;
    unhealed.push(...left.unhealed);
  }
  if (records.length === 0) {
    // Its servers are gone; a server network or lock cgroup of a run killed after them may not be (kill -9
    // mid-teardown).
    if (owner)
      done.netObjects = removeLeftoverNet(runDir, reg.dir, log) + removeLeftoverLockCgroup(runDir, reg.dir, log);
    return done;
  }
  if (!owner) {
    // Without the harness's record we cannot tell a live run from a dead one: touching it could kill a run.
    log(
      `left alone: ${runDir} has ${records.length} pid record(s) but no readable harness record (${path.join(reg.dir, OWNER_FILE)}); if no fencepost runs there, stop its processes by hand`,
    );
    return { ...done, leftAlone: 1 };
  }
  const dirs = runDirs(realpath(runDir), owner).map(realpath);
  // First the lock processes' cgroup: everything a lock process forked is in it, a setsid daemon included.
  done.netObjects += removeLeftoverLockCgroup(runDir, reg.dir, log);
  done.stopped = await stopLeftovers(reg, records, dirs, runDir, log);
  // After its servers: a cgroup can only be removed once the processes in it are gone.
  done.netObjects += removeLeftoverNet(runDir, reg.dir, log);
  return done;
}

/** Every pid folder of a run, up to 4 levels under the results folder. */
function pidRegistriesUnder(resultsDir: string): PidRegistry[] {
  const registries: PidRegistry[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = path.join(dir, e.name);
      if (e.name === RUN_FILES.pids) registries.push(new PidRegistry(p));
      else walk(p, depth + 1);
    }
  };
  walk(path.resolve(resultsDir), 0);
  return registries;
}

/** Stops what the records of a dead run still name (resume, then kill; children too when recorded). */
async function stopLeftovers(
  reg: PidRegistry,
  records: PidRecord[],
  dirs: string[],
  runDir: string,
  log: (line: string) => void,
): Promise<number> {
  let stopped = 0;
  for (const rec of records) {
    const mains = leftoverPids(rec, dirs, log, runDir);
    // A lock process held by its process group: the group — alive after its leader, too — and every descendant of
    // it (lock-tree.ts says why a group whose leader is gone is still ours).
    const group =
      rec.killGroup && !rec.pending && Number.isFinite(rec.startTime)
        ? treePids({ by: 'process-group', leaders: [{ pid: rec.pid, startTime: rec.startTime! }] })
        : [];
    if (mains.length === 0 && group.length === 0) {
      reg.remove(rec.name);
      continue;
    }
    const pids = [...mains.flatMap((pid) => [pid, ...(rec.killChildren ? childPids(pid) : [])]), ...group];
    for (const pid of new Set(pids)) {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    for (let i = 0; i < 50 && pids.some(isAlive); i++) await sleep(20);
    const others = new Set(pids).size - mains.length;
    log(
      `stopped ${rec.name} (pid ${mains.join(', ') || `${rec.pid}, gone; its process group`}${others > 0 ? ` + ${others} children` : ''}) from ${runDir}`,
    );
    reg.remove(rec.name);
    stopped++;
  }
  return stopped;
}

/**
 * The processes a record of a dead run still names. A pending record's folder must be one of the run's own
 * (`dirs`): one naming `/` or the results folder would otherwise match every process started after it there.
 */
function leftoverPids(rec: PidRecord, dirs: string[], log: (line: string) => void, runDir: string): number[] {
  if (!rec.pending) return stillOurs(rec) ? [rec.pid] : [];
  const cwd = rec.pending.cwd;
  if (
    typeof cwd !== 'string' ||
    !path.isAbsolute(cwd) ||
    !Number.isFinite(rec.pending.notBefore) ||
    !dirs.some((d) => within(cwd, d))
  ) {
    log(
      `ignored the pending record ${rec.name} of ${runDir}: its folder ${JSON.stringify(cwd)} is not one of the run's own (${dirs.join(', ')}); nothing stopped for it`,
    );
    return [];
  }
  return pendingPids(rec);
}

function realpath(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
