import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PidRegistry } from '../common/pid-registry.ts';
import { runPath } from '../store/run-dir.ts';
import type { ClientSpec, ToClient } from '../workloads/client-protocol.ts';
import type { ClientClockReading, ClientProcess } from '../nemesis/nemesis.ts';
import { killTree } from '../workloads/foreign/lock-tree.ts';
import type { DrivenStepName } from '../workloads/driven-client.ts';
import { deathOf, exitIsDeath, type OpSink } from './client-deaths.ts';
import { LockTrees, signalPid, signalWithLockTree } from './lock-processes.ts';
import { clientLogFile, forkSlot, sendTo, type DrivenEvent, type Slot, type SlotSpec } from './client-slot.ts';

/** Pause before a restart, times the deaths so far: a client that dies at once must not spin the CPU. */
const RESTART_BACKOFF_MS = 250;

/**
 * One client OS process as the harness (and the nemesis) sees it: the same object follows its slot across restarts
 * (its contract, nemesis/nemesis.ts).
 */
export type ClientHandle = ClientProcess;

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
  /** Open `clock` requests by seq: what their answer resolves. */
  private readonly clockAnswers = new Map<number, (wallMs: number, monoNs: bigint) => void>();
  private clockSeq = 0;

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
      sendTo(s, { type: 'start', spec }, this.log);
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
    if (s) sendTo(s, { type: 'step', seq, f }, this.log);
  }

  /** The client in `slot` reads its own clocks and says what they read (clock-rate-client's proof); null on no answer. */
  async readClock(slot: number, timeoutMs: number): Promise<ClientClockReading | null> {
    const s = this.slots[slot];
    if (!s || s.handle.exited) return null;
    const seq = ++this.clockSeq;
    const askedAtMs = performance.now();
    const answer = new Promise<ClientClockReading>((resolve) =>
      this.clockAnswers.set(seq, (wallMs, monoNs) =>
        resolve({ wallMs, monoNs, askedAtMs, answeredAtMs: performance.now() }),
      ),
    );
    sendTo(s, { type: 'clock', seq }, this.log);
    const reading = await Promise.race([answer, sleep(timeoutMs, null, { ref: false })]);
    this.clockAnswers.delete(seq);
    return reading;
  }

  /** Listen to the driven clients' events (connected and waiting; a step refused); returns the unsubscribe. */
  onDriven(listener: (e: DrivenEvent) => void): () => void {
    this.drivenListeners.push(listener);
    return () => (this.drivenListeners = this.drivenListeners.filter((l) => l !== listener));
  }

  private driven(e: DrivenEvent): void {
    for (const l of this.drivenListeners) l(e);
  }

  /** Fork one client and resolve once it is ready for its spec (the caller sends `start`). */
  private spawn(spec: SlotSpec & Partial<ClientSpec>, handle: ClientHandle, deaths: number): Promise<void> {
    const { slot, ready } = forkSlot(spec, handle, deaths, {
      runDir: this.runDir,
      pids: this.pids,
      onOp: this.onOp,
      env: this.env(spec.slot),
      forkNo: this.forks++,
      log: this.log,
      together: this.together,
      isCurrent: (s) => this.slots[s.spec.slot] === s,
      driven: (e) => this.driven(e),
      clockRead: (seq, wallMs, monoNs) => this.clockAnswers.get(seq)?.(wallMs, monoNs),
      ended: (s, code, signal) => {
        const at = { started: this.started, current: this.slots[s.spec.slot] === s, stopping: this.stopping };
        if (exitIsDeath({ ...at, killedOnPurpose: !!s.killedOnPurpose, libraryCrash: !!s.libraryCrash }))
          void this.died(s, code, signal);
      },
    });
    this.slots[spec.slot] = slot;
    return ready;
  }

  /** Record a death mid-run, then restart the slot under a new process id, or give it up. */
  private async died(slot: Slot, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const { deaths, exit } = deathOf({
      slot: slot.spec.slot,
      code,
      signal,
      logFile: clientLogFile(this.runDir, slot.spec.slot),
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
    // Killed by the nemesis, or ended by its lock library, as the run was stopping: recorded above, nothing left to
    // restart it for.
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
      else sendTo(this.slots[spec.slot], { type: 'start', spec }, this.log);
    } catch {
      // It died before it was ready; its exit handler has recorded that and carries on from there.
    }
  }

  /** Stop or resume a client and its lock processes together (lock-processes.ts: in which order). */
  signal(slot: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
    const c = this.clients[slot];
    if (c && !c.exited) signalWithLockTree(c, signal);
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
