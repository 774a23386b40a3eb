/**
 * A lock process's whole tree: the user's command and everything it started. The command is any argv — `sh -c …`,
 * `go run .`, `poetry run`, a script that forks a helper — so the process that holds the lock's session may be a
 * child or grandchild of the pid spawn returned. A pause that stops only that pid leaves the session's keep-alive
 * running and tests nothing; a kill that reaches only it leaves the rest holding the lock (and the pipes) for good.
 *
 * Two ways to hold a tree together, the first wherever it can be had:
 *   - a cgroup2 folder of its own (root, a cgroup2 mount): every descendant starts in it and stays, `setsid` and
 *     double forks included. Paused with `cgroup.freeze` (every task at once, and the kernel says when all are
 *     frozen), killed with `cgroup.kill`.
 *   - otherwise its process group (the command is spawned as a group leader): SIGSTOP / SIGKILL to the group, and to
 *     every descendant found by parent pid. A descendant that calls setsid *and* whose parent has exited is in
 *     neither and is not seen: the evidence names which way the tree was held, so a report can say so.
 */
import fs from 'node:fs';
import { cgroupFrozen, cgroupPids, freezeCgroup, killCgroup } from '../../common/cgroup2.ts';
import { processState, startTime } from '../../common/pid-registry.ts';

/** A process group the tree was spawned as: its leader's pid (= the group id) and start time. */
export interface GroupLeader {
  pid: number;
  startTime: number | null;
}

export type LockTree = { by: 'cgroup'; dir: string } | { by: 'process-group'; leaders: readonly GroupLeader[] };

/** What a stop did, for a fault's record: how the tree was held, its processes, and those not stopped. */
export interface TreeStop {
  by: LockTree['by'];
  pids: number[];
  /** Processes of the tree not stopped within the budget (a cgroup that is not frozen: all of them). */
  running: number[];
}

interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
}

/** Every process of the host, from /proc (pid, parent, process group, state). */
function procTable(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command name (in parentheses, may hold spaces): state ppid pgrp …
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: +entry, ppid: +ppid, pgrp: +pgrp, state });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * Whether signalling group `g` reaches only processes of ours: its leader is the process we spawned (same start
 * time), or is gone while the group still has members — Linux never hands out a pid still in use as a process group
 * id, so that group is the one our leader made.
 */
function groupIsOurs(g: GroupLeader): boolean {
  const t = startTime(g.pid);
  return t === null || t === g.startTime;
}

/** The members of the groups and every descendant of theirs, from one /proc table. Pure. */
export function groupTreePids(table: readonly ProcEntry[], groups: readonly number[]): number[] {
  const inTree = new Set(table.filter((p) => groups.includes(p.pgrp)).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return [...inTree].sort((a, b) => a - b);
}

/** The live processes of the tree. */
export function treePids(tree: LockTree): number[] {
  if (tree.by === 'cgroup') return cgroupPids(tree.dir);
  const ours = tree.leaders.filter(groupIsOurs).map((g) => g.pid);
  return ours.length ? groupTreePids(procTable(), ours) : [];
}

/** Signal each group and every process of the tree, listed first: a killed parent's children move to init. */
function signalTree(tree: Extract<LockTree, { by: 'process-group' }>, signals: readonly NodeJS.Signals[]): void {
  const pids = treePids(tree);
  const groups = tree.leaders.filter(groupIsOurs);
  for (const signal of signals) {
    // The groups first (one syscall reaches every member at once), then each descendant that left them.
    for (const g of groups) signal1(-g.pid, signal);
    for (const pid of pids) signal1(pid, signal);
  }
}

function signal1(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Stop every process of the tree (SIGSTOP's counterpart: `resumeTree`). */
export function stopTree(tree: LockTree): void {
  if (tree.by === 'cgroup') freezeCgroup(tree.dir, true);
  else signalTree(tree, ['SIGSTOP']);
}

export function resumeTree(tree: LockTree): void {
  if (tree.by === 'cgroup') freezeCgroup(tree.dir, false);
  else signalTree(tree, ['SIGCONT']);
}

/** SIGKILL every process of the tree (resumed first in a process group: its stopped members die either way). */
export function killTree(tree: LockTree): void {
  if (tree.by === 'cgroup') return killCgroup(tree.dir);
  signalTree(tree, ['SIGCONT', 'SIGKILL']);
}

/** Whether the tree is stopped now: every process of it (at least one), by the cgroup's word or each one's state. */
export function treeStopNow(tree: LockTree): TreeStop {
  const pids = treePids(tree);
  if (tree.by === 'cgroup') return { by: tree.by, pids, running: pids.length && cgroupFrozen(tree.dir) ? [] : pids };
  const running = pids.filter((pid) => {
    const state = processState(pid);
    return state !== null && state !== 'T' && state !== 't';
  });
  return { by: tree.by, pids, running };
}
