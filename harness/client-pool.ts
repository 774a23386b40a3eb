import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { inFlightFile, runLogFile, runPath } from '../store/run-dir.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ClientSpec, type FromClient, type ToClient } from '../workloads/client-protocol.ts';
import { CLIENT_EXITED, CLIENT_EXIT_NOTE, type ClientExit } from '../history/client-exit.ts';
import type { OpInput } from '../history/op.ts';
import type { SentOp } from '../workloads/op-outbox.ts';
import { InFlightLedger } from './in-flight-ledger.ts';
import { processRole } from '../history/process-role.ts';
import { startTime, stillOurs, type PidRegistry } from '../common/pid-registry.ts';
import type { ClientProcess } from '../nemesis/nemesis.ts';
import { LockCgroups } from '../workloads/foreign/lock-cgroups.ts';
import { killTree, resumeTree, stopTree, type GroupLeader, type LockTree } from '../workloads/foreign/lock-tree.ts';
import type { DrivenStepName } from '../workloads/driven-client.ts';

/**
 * The harness's environment variables a client never gets: each turns on a library's debug log, which prints
 * call arguments — ioredis logs every command under DEBUG, AUTH and its password included; grpc-js traces calls
 * (etcd's Authenticate carries the password). A client's log is in the run folder and its last lines go into
 * the history when it dies, so a password must never reach it. Dropped, not scrubbed: scrubbing catches only the
 * forms we know.
 */
export const CLIENT_ENV_DROPPED = ['DEBUG', 'NODE_DEBUG', 'GRPC_TRACE', 'GRPC_VERBOSITY'] as const;

/** A client's environment: the harness's without CLIENT_ENV_DROPPED, plus its own (the clock shim's). */
export function clientEnvironment(
  harnessEnv: NodeJS.ProcessEnv,
  own: Record<string, string>,
): Record<string, string | undefined> {
  const env = { ...harnessEnv };
  for (const k of CLIENT_ENV_DROPPED) delete env[k];
  return { ...env, ...own };
}

const CLIENT_SCRIPT = new URL('../workloads/client.ts', import.meta.url);
const TSX = import.meta.resolve('tsx');

/** A slot whose process died this many times is not restarted again: its clients keep dying, so say so and stop. */
export const MAX_CLIENT_DEATHS = 5;
/** Pause before a restart, times the deaths so far: a client that dies at once must not spin the CPU. */
const RESTART_BACKOFF_MS = 250;
/** Lines of a dead client's log that go into the history with its exit. */
const LAST_LINES = 5;

/**
 * One client OS process as the harness (and the nemesis) sees it: the same object follows its slot across restarts
 * (its contract, nemesis/nemesis.ts).
 */
export type ClientHandle = ClientProcess;

/** Where a client's op goes: the journal. `at` is the client's own CLOCK_MONOTONIC stamp; none = stamp it now. */
export type OpSink = (op: OpInput, at?: bigint) => void;

/**
 * Whether a client's exit is recorded as a death (its open ops end `info: client-exited`; the slot restarts unless
 * the run is stopping): the slot's current process, after the run started, and either mid-run or killed by the
 * nemesis. A kill-holder shot in the run's last moment is a death even when its exit is handled after the stop
 * began (on a loaded machine it was: the kill was recorded, the killed client's op stayed open).
 */
export function exitIsDeath(exit: {
  started: boolean;
  current: boolean;
  stopping: boolean;
  killedOnPurpose: boolean;
}): boolean {
  return exit.started && exit.current && (!exit.stopping || exit.killedOnPurpose);
}

/** What a driven client (workloads/driven-client.ts) said: it is connected and waiting, or it refused a step. */
export type DrivenEvent =
  | { slot: number; kind: 'waiting' }
  | { slot: number; kind: 'refused'; seq: number; reason: string };

/** What forking a slot's process needs of its spec; the rest arrives with `start` (ClientPool.launch). */
type SlotSpec = Pick<ClientSpec, 'slot' | 'concurrency' | 'generation'>;

interface Slot {
  /** The whole spec once the client was started; until then only what its fork needed. */
  spec: SlotSpec & Partial<ClientSpec>;
  handle: ClientHandle;
  child: ChildProcess;
  exited: Promise<void>;
  deaths: number;
  /** Open invocations by process id (the main loop's and its watchdog's): a death completes them as `info`. */
  open: Map<number, OpInput>;
  /** This process's in-flight file (workloads/op-outbox.ts): its invokes, written before each call started. */
  inFlight: string;
  /** Which of its ops, from IPC and at its exit from that file, to record (each exactly once). */
  ledger: InFlightLedger;
  /** Highest process id this slot has used, so a restarted client continues past it. */
  maxProcess: number;
  /** The client's live foreign lock processes (pid → command), the newest last. */
  lockPids: Map<number, string>;
  /** Every lock process this client started, as a process group (the tree where no cgroup holds it). */
  groups: GroupLeader[];
  /** The nemesis killed this process (killOnPurpose): its death is not one of the slot's own. */
  killedOnPurpose?: boolean;
  /** Its lock library said it is ending the process on purpose (a `library-crash` message): not a death of its own either. */
  libraryCrash?: { error: string; message: string };
}

/**
 * The client processes of a run. Spawned detached (own process group) so a terminal Ctrl-C reaches only the
 * harness, which resumes and stops them in order; each is registered for `fencepost cleanup`. A client that
 * dies while the run goes on is recorded (its open ops become `info`, with its exit code and last log lines)
 * and restarted under a new process id, up to MAX_CLIENT_DEATHS times per slot.
 */
export class ClientPool {
  readonly clients: ClientHandle[] = [];
  private slots: Slot[] = [];
  private stopping = false;
  private resolveAllGaveUp!: () => void;
  /** Resolves when every slot has given up (its clients kept dying): the run has nobody left to run. */
  readonly allGaveUp = new Promise<void>((resolve) => (this.resolveAllGaveUp = resolve));
  private gaveUp = 0;
  private forks = 0;
  private drivenListeners: ((e: DrivenEvent) => void)[] = [];

  constructor(
    private readonly runDir: string,
    private readonly pids: PidRegistry,
    private readonly onOp: OpSink,
    private readonly env: (slot: number) => Record<string, string> = () => ({}),
    private readonly log: (line: string) => void = () => {},
    /** Runs the recording of ops that arrived together, so the journal writes them at once (Journal.batch). */
    private readonly together: (record: () => void) => void = (record) => record(),
  ) {}

  /** Every slot's process forked and loaded (`launch`), until `start` gives them their specs. */
  private launched: Promise<void> | null = null;
  /** `start` sent the specs: from then on a client's death is the run's (recorded, the slot restarted). */
  private started = false;

  /**
   * Fork `concurrency` client processes now, before the servers they will use exist: a client's start-up (Node,
   * tsx, its modules: ~0.8 s of CPU each) then overlaps the cluster's boot instead of following it. `start` gives
   * each its spec. A client that dies before it is ready makes `start` throw.
   */
  launch(concurrency: number): void {
    fs.mkdirSync(runPath(this.runDir, 'inFlight'), { recursive: true, mode: 0o700 });
    const ready = Array.from({ length: concurrency }, (_, slot) => {
      const handle: ClientHandle = { slot, pid: 0, process: slot, paused: false, exited: false };
      this.clients.push(handle);
      return this.spawn({ slot, concurrency }, handle, 0);
    });
    this.launched = Promise.all(ready).then(() => {});
    // Awaited by start; until then a rejection is not unhandled.
    this.launched.catch(() => {});
  }

  /** Give each launched client its spec (launching them first if `launch` was not called) and start them. */
  async start(specs: ClientSpec[]): Promise<void> {
    if (!this.launched) this.launch(specs.length);
    if (specs.length !== this.clients.length || specs.some((spec, i) => spec.slot !== i))
      throw new Error(`client pool: ${specs.length} specs for ${this.clients.length} launched slots`);
    await this.launched;
    // Ready, then gone while the cluster booted: nothing of the run has started, so nothing to restart or record.
    const gone = this.clients.find((c) => c.exited);
    if (gone) throw new Error(`client ${gone.slot} exited before the run started; see logs/client-${gone.slot}.log`);
    this.started = true;
    const lockCgroup = this.holdLockTrees(specs);
    for (const s of this.slots) {
      const spec = { ...specs[s.spec.slot], ...lockCgroup(s.spec.slot) };
      s.spec = spec;
      this.send(s, { type: 'start', spec });
    }
  }

  /** The run's lock cgroup, when its clients start lock processes and a cgroup can be made here. */
  private lockCgroups: LockCgroups | null = null;

  /**
   * For a lock in another language: each client's lock processes get a cgroup of their own (a pause freezes all of
   * their processes, a kill leaves none), or, where none can be made, each is its own process group — said once.
   * Returns the spec field that tells a slot's client where to start them.
   */
  private holdLockTrees(specs: ClientSpec[]): (slot: number) => { lockCgroup?: string } {
    if (!specs.some((s) => s.foreign)) return () => ({});
    const made = LockCgroups.create(this.runDir, this.pids.dir);
    if (typeof made === 'string') {
      this.log(
        `fencepost: the lock processes are held by process group, not by cgroup (${made}): a pause stops each group and every descendant found by parent pid; a process that calls setsid after its parent exited is not reached`,
      );
      return () => ({});
    }
    this.lockCgroups = made;
    return (slot) => {
      const tree = made.treeFor(`client-${slot}`);
      this.clients[slot].lockTree = tree;
      return { lockCgroup: tree.dir };
    };
  }

  /** Kill whatever is left of every client's lock processes (helpers they forked) and remove the lock cgroup. */
  private reapAllLockTrees(): void {
    for (const s of this.slots) if (s) this.reapLockProcesses(s);
    const left = this.lockCgroups?.dispose(this.pids.dir);
    if (left) this.log(`fencepost: ${left}; \`fencepost cleanup\` removes it once this harness is gone`);
    this.lockCgroups = null;
  }

  /**
   * Driven mode (the clients' specs carry `driven`): the client in `slot` takes one step. Its ops arrive as any
   * client's; a step its state does not allow comes back as a `refused` event (onDriven).
   */
  step(slot: number, seq: number, f: DrivenStepName): void {
    const s = this.slots[slot];
    if (s) this.send(s, { type: 'step', seq, f });
  }

  /** Listen to the driven clients' events (connected and waiting; a step refused); returns the unsubscribe. */
  onDriven(listener: (e: DrivenEvent) => void): () => void {
    this.drivenListeners.push(listener);
    return () => (this.drivenListeners = this.drivenListeners.filter((l) => l !== listener));
  }

  private driven(e: DrivenEvent): void {
    for (const l of this.drivenListeners) l(e);
  }

  /** A send whose failure (the child gone, its channel closed) is logged: its exit handler records the death. */
  private send(slot: Slot, msg: ToClient): void {
    if (!slot.child.connected) return;
    slot.child.send(msg, (err) => {
      if (err) this.log(`fencepost: could not send ${msg.type} to client ${slot.spec.slot}: ${err.message}`);
    });
  }

  private logFile(slot: number): string {
    return runLogFile(this.runDir, `client-${slot}`);
  }

  /** Fork one client and resolve once it is ready for its spec (the caller sends `start`). */
  private spawn(spec: SlotSpec, handle: ClientHandle, deaths: number): Promise<void> {
    const log = fs.openSync(this.logFile(spec.slot), 'a', RUN_FILE_MODE);
    const inFlight = inFlightFile(this.runDir, spec.slot, this.forks++);
    const child = fork(
      CLIENT_SCRIPT,
      ['--run-dir', this.runDir, '--slot', String(spec.slot), '--in-flight', inFlight],
      {
        execArgv: ['--import', TSX],
        detached: true,
        stdio: ['ignore', log, log, 'ipc'],
        env: clientEnvironment(process.env, this.env(spec.slot)),
      },
    );
    fs.closeSync(log);
    Object.assign(handle, { pid: child.pid!, paused: false, exited: false });
    const slot: Slot = {
      spec,
      handle,
      child,
      deaths,
      open: new Map(),
      inFlight,
      ledger: new InFlightLedger(),
      maxProcess: spec.slot + spec.concurrency * (spec.generation ?? 0),
      lockPids: new Map(),
      groups: [],
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    this.slots[spec.slot] = slot;
    this.pids.add({ name: `client-${spec.slot}`, pid: child.pid!, marker: this.runDir });
    return new Promise((resolve, reject) => {
      child.on('message', (raw: unknown) => {
        const msg = checkedMessage(raw);
        if (typeof msg === 'string') {
          // A plugin calling process.send, or a bug of ours: said, and dropped — thrown from here, nothing catches it.
          this.log(`fencepost: client ${spec.slot} sent a malformed message (${msg}); ignored`);
          return;
        }
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'ops') this.together(() => msg.ops.forEach((sent) => this.received(slot, sent)));
        else if (msg.type === 'log') fs.appendFileSync(this.logFile(spec.slot), `${msg.line}\n`);
        else if (msg.type === 'lock-process') this.lockProcess(slot, msg.pid, msg.command, msg.ended);
        else if (msg.type === 'library-crash') slot.libraryCrash = { error: msg.error, message: msg.message };
        else if (msg.type === 'waiting') this.driven({ slot: spec.slot, kind: 'waiting' });
        else if (msg.type === 'step-refused')
          this.driven({ slot: spec.slot, kind: 'refused', seq: msg.seq, reason: msg.reason });
      });
      // A send on a channel that closed (the child died meanwhile) emits 'error' here; its exit handler records it.
      child.on('error', (err) => this.log(`fencepost: client ${spec.slot}: ${err.message}`));
      child.once('exit', (code, signal) => {
        handle.exited = true;
        this.recoverUnsent(slot);
        this.pids.remove(`client-${spec.slot}`);
        // Its lock process must not outlive it: execa's cleanup kills it on a normal exit, not on SIGKILL.
        this.reapLockProcesses(slot);
        reject(
          new Error(`client ${spec.slot} exited (code ${code}) before it was ready; see logs/client-${spec.slot}.log`),
        );
        const current = this.slots[spec.slot] === slot;
        if (
          exitIsDeath({
            started: this.started,
            current,
            stopping: this.stopping,
            killedOnPurpose: !!slot.killedOnPurpose,
          })
        )
          void this.died(slot, code, signal);
      });
    });
  }

  /**
   * A client's foreign lock process started (`pid`) or ended (`ended`): registered for pauses, kills and cleanup.
   * One pid file per process, not per slot: after an `info` the client starts the next process while the old one is
   * still closing, and the old one's end must not unregister the new one.
   */
  private lockProcess(slot: Slot, pid: number | null, command = '', ended?: number): void {
    if (this.slots[slot.spec.slot] !== slot) return;
    if (pid === null) {
      if (ended === undefined) return;
      slot.lockPids.delete(ended);
      // Its group stays in `groups`: a helper it forked may still be in it, reaped with the slot's tree.
      this.pids.remove(lockRecordName(slot.spec.slot, ended));
      if (slot.handle.lockProcess?.pid === ended) {
        const newest = [...slot.lockPids].at(-1);
        slot.handle.lockProcess = newest ? { pid: newest[0], command: newest[1] } : null;
      }
      return;
    }
    slot.lockPids.set(pid, command);
    slot.handle.lockProcess = { pid, command };
    this.pids.add({ name: lockRecordName(slot.spec.slot, pid), pid, marker: this.runDir, killGroup: true });
    if (!slot.spec.lockCgroup) {
      slot.groups.push({ pid, startTime: startTime(pid) });
      slot.handle.lockTree = { by: 'process-group', leaders: [...slot.groups] };
    }
    // Reported while the nemesis has its client stopped (sent just before the stop): paused with it. (In a frozen
    // cgroup it was frozen as it entered.)
    if (slot.handle.paused && slot.handle.lockTree) stopTree(slot.handle.lockTree);
  }

  /**
   * Kill every process a dead client's lock processes left — their whole tree: the slot's cgroup, or each group it
   * started (pid and start time, as cleanup judges a pid file) and their descendants.
   */
  private reapLockProcesses(slot: Slot): void {
    const tree = slotTree(slot);
    if (tree) killTree(tree);
    const names = new Set([...slot.lockPids.keys()].map((pid) => lockRecordName(slot.spec.slot, pid)));
    for (const rec of this.pids.list().filter((r) => names.has(r.name))) {
      if (stillOurs(rec)) signalPid(rec.pid, 'SIGKILL');
      this.pids.remove(rec.name);
    }
    slot.lockPids.clear();
    slot.groups = [];
    slot.handle.lockProcess = null;
    if (!slot.spec.lockCgroup) slot.handle.lockTree = null;
  }

  /** An op the client sent over IPC (in its own order); an invoke its exit already recovered from the file is skipped. */
  private received(slot: Slot, sent: SentOp): void {
    if (slot.ledger.received(sent)) this.record(slot, sent.op, BigInt(sent.at));
  }

  /**
   * A client process ended: record the invokes it wrote ahead but never sent (it died inside a call, or was killed
   * with an invoke held for its completion), so an op that may have taken effect is in the history — then open,
   * so a death completes it as `info` like any other. Its file goes: everything in it is now in the journal.
   */
  private recoverUnsent(slot: Slot): void {
    let text = '';
    try {
      text = fs.readFileSync(slot.inFlight, 'utf8');
    } catch {
      // Never created: the process died before its first line ran.
    }
    for (const sent of slot.ledger.recover(text)) this.record(slot, sent.op, BigInt(sent.at));
    fs.rmSync(slot.inFlight, { force: true });
  }

  private record(slot: Slot, op: OpInput, at: bigint): void {
    if (typeof op.process === 'number') {
      const role = processRole(op.process);
      const main = role.kind === 'watchdog' ? role.of : op.process;
      if (role.kind === 'client') slot.handle.process = op.process;
      slot.maxProcess = Math.max(slot.maxProcess, main);
      if (op.type === 'invoke') slot.open.set(op.process, op);
      else slot.open.delete(op.process);
    }
    this.onOp(op, at);
  }

  /** Record a death mid-run, then restart the slot under a new process id, or give it up. */
  private async died(slot: Slot, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    // A death the nemesis caused is the fault working, and one the lock library caused on purpose is the library's
    // behaviour, not the client failing: neither brings the give-up nearer.
    const deaths = slot.killedOnPurpose || slot.libraryCrash ? slot.deaths : slot.deaths + 1;
    const exit: ClientExit = {
      slot: slot.spec.slot,
      code,
      signal,
      lastLines: lastLines(this.logFile(slot.spec.slot), LAST_LINES),
      ...(slot.libraryCrash ? { libraryCrash: slot.libraryCrash } : {}),
    };
    if (deaths >= MAX_CLIENT_DEATHS) exit.gaveUpAfter = deaths;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (slot.open.size === 0) {
      this.onOp({ process: slot.handle.process, type: 'info', f: CLIENT_EXIT_NOTE, value: exit, error: CLIENT_EXITED });
    }
    for (const [process, invoke] of slot.open) {
      this.onOp({
        process,
        type: 'info',
        f: invoke.f,
        value: { ...(invoke.value as object), exit },
        error: CLIENT_EXITED,
      });
    }
    slot.open.clear();
    if (exit.gaveUpAfter !== undefined) {
      this.log(
        `fencepost: client ${slot.spec.slot} died ${deaths} times (last: ${how}); not restarting it. See logs/client-${slot.spec.slot}.log`,
      );
      if (++this.gaveUp === this.clients.length) this.resolveAllGaveUp();
      return;
    }
    // Killed by the nemesis as the run was stopping: recorded above, nothing left to restart it for.
    if (this.stopping) return;
    const why = slot.libraryCrash
      ? ` — its lock library ended it (${slot.libraryCrash.error}: ${slot.libraryCrash.message}), the library's own behaviour`
      : '';
    this.log(
      `fencepost: client ${slot.spec.slot} exited with ${how} mid-run${why}; restarting it as a new process (see logs/client-${slot.spec.slot}.log)`,
    );
    await sleep(RESTART_BACKOFF_MS * Math.max(1, deaths));
    if (this.stopping) return;
    const generation = Math.floor(slot.maxProcess / slot.spec.concurrency) + 1;
    // A slot dies mid-run only after it was started: its spec is whole.
    const spec = { ...(slot.spec as ClientSpec), generation };
    try {
      await this.spawn(spec, slot.handle, deaths);
      // Stopped while it booted: it has run nothing, so it has nothing to finish.
      if (this.stopping) this.kill();
      else this.send(this.slots[spec.slot], { type: 'start', spec });
    } catch {
      // It died before it was ready; its exit handler has recorded that and carries on from there.
    }
  }

  /**
   * Stop or resume a client and its lock processes together — each lock process's whole tree (a wrapper's children,
   * helpers it forked: lock-tree.ts), every lock process of the client (one still closing after an `info` holds its
   * session as long as it runs). The client first on SIGSTOP (it is the one that writes: stopped, it cannot write
   * however long the tree takes to stop), the tree first on SIGCONT.
   */
  signal(slot: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const c = this.clients[slot];
    if (!c || c.exited) return;
    const tree = c.lockTree;
    if (signal === 'SIGCONT' && tree) resumeTree(tree);
    if (!signalPid(c.pid, signal)) return; // exited meanwhile
    c.paused = signal === 'SIGSTOP';
    if (signal === 'SIGSTOP' && tree) stopTree(tree);
  }

  killOnPurpose(slot: number): void {
    const c = this.clients[slot];
    const s = this.slots[slot];
    if (!c || !s || c.exited) return;
    s.killedOnPurpose = true;
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
    // Its lock processes die with it, every process of their tree, now rather than when its exit is handled.
    const tree = slotTree(s);
    if (tree) killTree(tree);
  }

  /** Ask every client to finish its step and exit; after `graceMs`, resume and kill the stragglers. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const c of this.clients) this.signal(c.slot, 'SIGCONT');
    for (const s of this.slots) {
      if (s.child.connected) s.child.send({ type: 'stop' } satisfies ToClient, () => {});
    }
    const all = Promise.all(this.slots.map((s) => s.exited));
    if (!(await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)]))) {
      this.kill();
      await all;
    }
    this.reapAllLockTrees();
    // Every client's exit emptied its in-flight file into the journal and removed it: the folder goes too, if empty.
    try {
      fs.rmdirSync(runPath(this.runDir, 'inFlight'));
    } catch {
      // Not empty (a file an exit could not read stays, as evidence) or never made.
    }
  }

  /**
   * kill, then wait (at most `boundMs`) for every client's exit to be handled — its unsent invokes recovered, its pid
   * file removed — so a teardown that goes on to stop the cluster and exit leaves no pid file of a dead client.
   */
  async killAndWait(boundMs = 5000): Promise<void> {
    this.kill();
    const exits = this.slots.filter(Boolean).map((s) => s.exited);
    await Promise.race([Promise.all(exits), sleep(boundMs)]);
    this.reapAllLockTrees();
  }

  /** SIGCONT before SIGKILL: a stopped process does die of SIGKILL, but its pending IPC would be lost anyway. */
  kill(): void {
    this.stopping = true;
    for (const c of this.clients) {
      const s = this.slots[c.slot];
      const tree = s && slotTree(s);
      if (tree) killTree(tree);
      if (c.exited) continue;
      signalPid(c.pid, 'SIGCONT');
      signalPid(c.pid, 'SIGKILL');
    }
  }
}

/** Every lock process a slot's client started, with all they started: its cgroup, or their process groups. */
function slotTree(slot: Slot): LockTree | null {
  if (slot.spec.lockCgroup) return { by: 'cgroup', dir: slot.spec.lockCgroup };
  return slot.groups.length ? { by: 'process-group', leaders: slot.groups } : null;
}

/** The pid file of a client's lock process. */
const lockRecordName = (slot: number, pid: number) => `client-${slot}-lock-${pid}`;

/** Whether the signal was delivered (false: the process is gone). */
function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** How much of a dead client's log is read for its last lines: its tail, not a log a lock process may have flooded. */
const TAIL_BYTES = 64 << 10;

/** The last `n` non-empty lines of a client's log (its stdout and stderr go there), from its last 64 KiB. */
export function lastLines(file: string, n: number): string[] {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, TAIL_BYTES));
      fs.readSync(fd, buf, 0, buf.length, size - buf.length);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-n)
    .map((l) => l.slice(0, 300));
}

const OP_TYPES = new Set(['invoke', 'ok', 'fail', 'info']);

/** A client's IPC message as the protocol says it is, or what is wrong with it. */
export function checkedMessage(raw: unknown): FromClient | string {
  if (typeof raw !== 'object' || raw === null) return `not an object: ${typeof raw}`;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready' || m.type === 'stopped' || m.type === 'waiting') return m as FromClient;
  if (m.type === 'step-refused')
    return Number.isInteger(m.seq) && typeof m.reason === 'string'
      ? (m as FromClient)
      : 'a step-refused message without its seq and reason';
  if (m.type === 'lock-process')
    return (m.pid === null && Number.isInteger(m.ended) && (m.ended as number) > 0) ||
      (Number.isInteger(m.pid) && (m.pid as number) > 0)
      ? (m as FromClient)
      : `a lock-process message with pid ${JSON.stringify(m.pid)}`;
  if (m.type === 'log') return typeof m.line === 'string' ? (m as FromClient) : 'a log message without a line';
  if (m.type === 'library-crash')
    return typeof m.error === 'string' && typeof m.message === 'string'
      ? (m as FromClient)
      : 'a library-crash message without its error and message';
  if (m.type !== 'ops') return `unknown type ${JSON.stringify(m.type)}`;
  if (!Array.isArray(m.ops) || m.ops.length === 0) return 'an ops message without ops';
  for (const sent of m.ops as unknown[]) {
    const problem = sentOpProblem(sent);
    if (problem) return problem;
  }
  return m as FromClient;
}

/** What is wrong with one op of an `ops` message, or undefined. */
function sentOpProblem(sent: unknown): string | undefined {
  if (typeof sent !== 'object' || sent === null) return 'an op entry that is not an object';
  const s = sent as Record<string, unknown>;
  if (!Number.isInteger(s.seq) || (s.seq as number) < 1) return `op seq ${JSON.stringify(s.seq)}`;
  if (typeof s.at !== 'string' || !/^\d{1,20}$/.test(s.at))
    return `op time ${JSON.stringify(s.at)} is not decimal nanoseconds`;
  const op = s.op as Record<string, unknown> | null;
  if (typeof op !== 'object' || op === null) return 'an op entry without an op';
  if (typeof op.process !== 'number' && typeof op.process !== 'string') return 'an op without a process';
  if (typeof op.type !== 'string' || !OP_TYPES.has(op.type)) return `op type ${JSON.stringify(op.type)}`;
  if (typeof op.f !== 'string') return 'an op without an f';
  return undefined;
}
