import { startTime, stillOurs, type PidRegistry } from '../common/pid-registry.ts';
import type { ClientProcess } from '../nemesis/nemesis.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { LockCgroups } from '../workloads/foreign/lock-cgroups.ts';
import { killTree, resumeTree, stopTree, type GroupLeader, type LockTree } from '../workloads/foreign/lock-tree.ts';

/**
 * The foreign lock processes of a run's clients (a lock in another language runs as a process the client starts):
 * registered for pauses, kills and cleanup, and killed with the client that started them. `LockTrees` holds the
 * run's cgroup; `SlotLockProcesses` one client slot's processes.
 */

/** Whether the signal was delivered (false: the process is gone). */
export function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stop or resume a client and its lock processes together — each lock process's whole tree (a wrapper's children,
 * helpers it forked: lock-tree.ts), every lock process of the client (one still closing after an `info` holds its
 * session as long as it runs). The client first on SIGSTOP (it is the one that writes: stopped, it cannot write
 * however long the tree takes to stop), the tree first on SIGCONT.
 */
export function signalWithLockTree(client: ClientProcess, signal: 'SIGSTOP' | 'SIGCONT'): void {
  const tree = client.lockTree;
  if (signal === 'SIGCONT' && tree) resumeTree(tree);
  if (!signalPid(client.pid, signal)) return; // exited meanwhile
  client.paused = signal === 'SIGSTOP';
  if (signal === 'SIGSTOP' && tree) stopTree(tree);
}

/** The pid file of a client's lock process. */
const lockRecordName = (slot: number, pid: number) => `client-${slot}-lock-${pid}`;

/** One client slot's lock processes, across the restarts of its client (each restart gets a fresh one). */
export class SlotLockProcesses {
  /** The client's live lock processes (pid → command), the newest last. */
  private readonly live = new Map<number, string>();
  /** Every lock process this client started, as a process group (the tree where no cgroup holds it). */
  private groups: GroupLeader[] = [];
  /** The slot's cgroup, once its spec names one (`LockTrees.hold`). */
  cgroup: string | undefined;

  constructor(
    private readonly slot: number,
    private readonly handle: ClientProcess,
    private readonly pids: PidRegistry,
    private readonly marker: string,
  ) {}

  /**
   * A lock process started (`pid`) or ended (`ended`). One pid file per process, not per slot: after an `info` the
   * client starts the next process while the old one is still closing, and the old one's end must not unregister
   * the new one.
   */
  reported(pid: number | null, command = '', ended?: number): void {
    const handle = this.handle;
    if (pid === null) {
      if (ended === undefined) return;
      this.live.delete(ended);
      // Its group stays in `groups`: a helper it forked may still be in it, reaped with the slot's tree.
      this.pids.remove(lockRecordName(this.slot, ended));
      if (handle.lockProcess?.pid === ended) {
        const newest = [...this.live].at(-1);
        handle.lockProcess = newest ? { pid: newest[0], command: newest[1] } : null;
      }
      return;
    }
    this.live.set(pid, command);
    handle.lockProcess = { pid, command };
    this.pids.add({ name: lockRecordName(this.slot, pid), pid, marker: this.marker, killGroup: true });
    if (!this.cgroup) {
      this.groups.push({ pid, startTime: startTime(pid) });
      handle.lockTree = { by: 'process-group', leaders: [...this.groups] };
    }
    // Reported while the nemesis has its client stopped (sent just before the stop): paused with it. (In a frozen
    // cgroup it was frozen as it entered.)
    if (handle.paused && handle.lockTree) stopTree(handle.lockTree);
  }

  /** Every lock process the client started, with all they started: its cgroup, or their process groups. */
  tree(): LockTree | null {
    if (this.cgroup) return { by: 'cgroup', dir: this.cgroup };
    return this.groups.length ? { by: 'process-group', leaders: this.groups } : null;
  }

  /**
   * Kill every process a dead client's lock processes left — their whole tree: the slot's cgroup, or each group it
   * started (pid and start time, as cleanup judges a pid file) and their descendants.
   */
  reap(): void {
    const tree = this.tree();
    if (tree) killTree(tree);
    const names = new Set([...this.live.keys()].map((pid) => lockRecordName(this.slot, pid)));
    for (const rec of this.pids.list().filter((r) => names.has(r.name))) {
      if (stillOurs(rec)) signalPid(rec.pid, 'SIGKILL');
      this.pids.remove(rec.name);
    }
    this.live.clear();
    this.groups = [];
    this.handle.lockProcess = null;
    if (!this.cgroup) this.handle.lockTree = null;
  }
}

/** The run's lock cgroup, when its clients start lock processes and a cgroup can be made here. */
export class LockTrees {
  private cgroups: LockCgroups | null = null;

  constructor(
    private readonly runDir: string,
    private readonly pidDir: string,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * For a lock in another language: each client's lock processes get a cgroup of their own (a pause freezes all of
   * their processes, a kill leaves none), or, where none can be made, each is its own process group — said once.
   * Returns the spec field that tells a slot's client where to start them.
   */
  hold(specs: readonly ClientSpec[], clients: readonly ClientProcess[]): (slot: number) => { lockCgroup?: string } {
    if (!specs.some((s) => s.foreign)) return () => ({});
    const made = LockCgroups.create(this.runDir, this.pidDir);
    if (typeof made === 'string') {
      this.log(
        `fencepost: the lock processes are held by process group, not by cgroup (${made}): a pause stops each group and every descendant found by parent pid; a process that calls setsid after its parent exited is not reached`,
      );
      return () => ({});
    }
    this.cgroups = made;
    return (slot) => {
      const tree = made.treeFor(`client-${slot}`);
      clients[slot].lockTree = tree;
      return { lockCgroup: tree.dir };
    };
  }

  /** Remove the lock cgroup (its slots' processes reaped first). */
  dispose(): void {
    const left = this.cgroups?.dispose(this.pidDir);
    if (left) this.log(`fencepost: ${left}; \`fencepost cleanup\` removes it once this harness is gone`);
    this.cgroups = null;
  }
}
