import { setTimeout as sleep } from 'node:timers/promises';
import { treeStopNow, type TreeStop } from '../workloads/foreign/lock-tree.ts';
import type { ClientProcess } from './nemesis.ts';

/** A client as a fault's record names it: its process id and pid, and its lock process when it has one. */
export function clientTarget(c: Pick<ClientProcess, 'process' | 'pid' | 'lockProcess'>, pid = c.pid): string {
  const lock = c.lockProcess ? `, lock process pid ${c.lockProcess.pid}: ${c.lockProcess.command}` : '';
  return `client p${c.process} (pid ${pid}${lock})`;
}

/** A pause's evidence about a client's lock processes, as its record's params carry it (checkers/fault-hits.ts). */
export interface LockStopEvidence {
  lockPid: number;
  /** Every process of the tree was stopped — the lock process, a wrapper's children, helpers it forked. */
  lockStopped: boolean;
  /** How the tree was held (a cgroup, or process groups), its processes, and those still running. */
  lockTree: TreeStop;
}

/**
 * The evidence that a pause reached a client's lock processes (a lock in another language): every process of their
 * tree stopped within `budgetMs` of the stop — a cgroup's freeze and a SIGSTOP both land asynchronously — with the
 * lock process among them. A wrapper (`sh -c …`, `go run`) stopped while its child, the real client, keeps its session
 * alive is no pause of the lock. Undefined when the client has no lock process.
 */
export async function lockTreeStopped(
  c: Pick<ClientProcess, 'lockProcess' | 'lockTree'>,
  budgetMs = 500,
): Promise<LockStopEvidence | undefined> {
  const lockPid = c.lockProcess?.pid;
  if (!lockPid) return undefined;
  const until = performance.now() + budgetMs;
  for (;;) {
    const tree: TreeStop = c.lockTree ? treeStopNow(c.lockTree) : { by: 'process-group', pids: [], running: [] };
    const stopped = tree.pids.includes(lockPid) && tree.running.length === 0;
    if (stopped || performance.now() >= until) return { lockPid, lockStopped: stopped, lockTree: tree };
    await sleep(5);
  }
}
