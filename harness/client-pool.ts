import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { PidRegistry } from '../common/pid-registry.ts';
import { inFlightFile, runLogFile, runPath } from '../store/run-dir.ts';
import { checkedMessage, type ClientSpec, type ToClient } from '../workloads/client-protocol.ts';
import type { ClientProcess } from '../nemesis/nemesis.ts';
import { killTree, resumeTree, stopTree } from '../workloads/foreign/lock-tree.ts';
import type { DrivenStepName } from '../workloads/driven-client.ts';
import { clientEnvironment } from './client-environment.ts';
import { ClientOps, deathOf, exitIsDeath, type OpSink } from './client-deaths.ts';
import { LockTrees, signalPid, SlotLockProcesses } from './lock-processes.ts';

const CLIENT_SCRIPT = new URL('../workloads/client.ts', import.meta.url);
const TSX = import.meta.resolve('tsx');

/** Pause before a restart, times the deaths so far: a client that dies at once must not spin the CPU. */
const RESTART_BACKOFF_MS = 250;

/**
 * One client OS process as the harness (and the nemesis) sees it: the same object follows its slot across restarts
 * (its contract, nemesis/nemesis.ts).
 */
export type ClientHandle = ClientProcess;

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
  /** Its ops as recorded, and what its death records (client-deaths.ts). */
  ops: ClientOps;
  /** Its foreign lock processes (lock-processes.ts). */
  locks: SlotLockProcesses;
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
  private readonly lockTrees: LockTrees;

  constructor(
    private readonly runDir: string,
    private readonly pids: PidRegistry,
    private readonly onOp: OpSink,
    private readonly env: (slot: number) => Record<string, string> = () => ({}),
    private readonly log: (line: string) => void = () => {},
    /** Runs the recording of ops that arrived together, so the journal writes them at once (Journal.batch). */
    private readonly together: (record: () => void) => void = (record) => record(),
  ) {
    this.lockTrees = new LockTrees(runDir, pids.dir, log);
  }

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
    const lockCgroup = this.lockTrees.hold(specs, this.clients);
    for (const s of this.slots) {
      const spec = { ...specs[s.spec.slot], ...lockCgroup(s.spec.slot) };
      s.spec = spec;
      s.locks.cgroup = spec.lockCgroup;
      this.send(s, { type: 'start', spec });
    }
  }

  /** Kill whatever is left of every client's lock processes (helpers they forked) and remove the lock cgroup. */
  private reapAllLockTrees(): void {
    for (const s of this.slots) if (s) s.locks.reap();
    this.lockTrees.dispose();
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
      ops: new ClientOps(handle, inFlight, spec.slot + spec.concurrency * (spec.generation ?? 0), this.onOp),
      locks: new SlotLockProcesses(spec.slot, handle, this.pids, this.runDir),
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    slot.locks.cgroup = slot.spec.lockCgroup;
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
        else if (msg.type === 'ops') this.together(() => msg.ops.forEach((sent) => slot.ops.received(sent)));
        else if (msg.type === 'log') fs.appendFileSync(this.logFile(spec.slot), `${msg.line}\n`);
        else if (msg.type === 'lock-process') {
          if (this.slots[spec.slot] === slot) slot.locks.reported(msg.pid, msg.command, msg.ended);
        } else if (msg.type === 'library-crash') slot.libraryCrash = { error: msg.error, message: msg.message };
        else if (msg.type === 'waiting') this.driven({ slot: spec.slot, kind: 'waiting' });
        else if (msg.type === 'step-refused')
          this.driven({ slot: spec.slot, kind: 'refused', seq: msg.seq, reason: msg.reason });
      });
      // A send on a channel that closed (the child died meanwhile) emits 'error' here; its exit handler records it.
      child.on('error', (err) => this.log(`fencepost: client ${spec.slot}: ${err.message}`));
      child.once('exit', (code, signal) => {
        handle.exited = true;
        slot.ops.recoverUnsent();
        this.pids.remove(`client-${spec.slot}`);
        // Its lock process must not outlive it: execa's cleanup kills it on a normal exit, not on SIGKILL.
        slot.locks.reap();
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

  /** Record a death mid-run, then restart the slot under a new process id, or give it up. */
  private async died(slot: Slot, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const { deaths, exit } = deathOf({
      slot: slot.spec.slot,
      code,
      signal,
      logFile: this.logFile(slot.spec.slot),
      deathsBefore: slot.deaths,
      killedOnPurpose: !!slot.killedOnPurpose,
      libraryCrash: slot.libraryCrash,
    });
    const how = signal ? `signal ${signal}` : `code ${code}`;
    slot.ops.died(exit);
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
    const generation = Math.floor(slot.ops.maxProcess / slot.spec.concurrency) + 1;
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
    const tree = s.locks.tree();
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
      const tree = s?.locks.tree();
      if (tree) killTree(tree);
      if (c.exited) continue;
      signalPid(c.pid, 'SIGCONT');
      signalPid(c.pid, 'SIGKILL');
    }
  }
}
