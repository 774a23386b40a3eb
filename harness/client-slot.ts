import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { PidRegistry } from '../common/pid-registry.ts';
import type { ClientProcess } from '../nemesis/nemesis.ts';
import { inFlightFile, runLogFile } from '../store/run-dir.ts';
import { checkedMessage, type ClientSpec, type ToClient } from '../workloads/client-protocol.ts';
import { clientEnvironment } from './client-environment.ts';
import { ClientOps, type OpSink } from './client-deaths.ts';
import { SlotLockProcesses } from './lock-processes.ts';

/**
 * One client OS process in its slot: forked detached (its own process group, so a terminal Ctrl-C reaches only the
 * harness), registered for `fencepost cleanup`, its IPC messages routed, its exit handled — its unsent invokes
 * recovered and its lock processes reaped — before the pool (client-pool.ts) decides whether it was a death.
 */

const CLIENT_SCRIPT = new URL('../workloads/client.ts', import.meta.url);
const TSX = import.meta.resolve('tsx');

/** What a driven client (workloads/driven-client.ts) said: it is connected and waiting, or it refused a step. */
export type DrivenEvent =
  | { slot: number; kind: 'waiting' }
  | { slot: number; kind: 'refused'; seq: number; reason: string };

/** What forking a slot's process needs of its spec; the rest arrives with `start` (ClientPool.launch). */
export type SlotSpec = Pick<ClientSpec, 'slot' | 'concurrency' | 'generation'>;

export interface Slot {
  /** The whole spec once the client was started; until then only what its fork needed. */
  spec: SlotSpec & Partial<ClientSpec>;
  handle: ClientProcess;
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

/** The run's side of a slot: where its ops, lines and events go. */
export interface SlotOwner {
  readonly runDir: string;
  readonly pids: PidRegistry;
  readonly onOp: OpSink;
  readonly env: Record<string, string>;
  /** Which fork of the run this is (its in-flight file's number). */
  readonly forkNo: number;
  log(line: string): void;
  /** Runs the recording of ops that arrived together, so the journal writes them at once (Journal.batch). */
  together(record: () => void): void;
  /** Whether this is still the slot's current process (a restart replaces it). */
  isCurrent(slot: Slot): boolean;
  driven(e: DrivenEvent): void;
  /** The client answered a `clock` request: what its clocks read. */
  clockRead(seq: number, wallMs: number, monoNs: bigint): void;
  /** The process exited, its exit handled here: the pool records a death, or not. */
  ended(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void;
}

export const clientLogFile = (runDir: string, slot: number): string => runLogFile(runDir, `client-${slot}`);

/** Fork one client; `ready` resolves once it is ready for its spec (the caller sends `start`), rejects if it exits first. */
export function forkSlot(
  spec: SlotSpec & Partial<ClientSpec>,
  handle: ClientProcess,
  deaths: number,
  owner: SlotOwner,
): { slot: Slot; ready: Promise<void> } {
  const logFile = clientLogFile(owner.runDir, spec.slot);
  const log = fs.openSync(logFile, 'a', RUN_FILE_MODE);
  const inFlight = inFlightFile(owner.runDir, spec.slot, owner.forkNo);
  const child = fork(CLIENT_SCRIPT, ['--run-dir', owner.runDir, '--slot', String(spec.slot), '--in-flight', inFlight], {
    execArgv: ['--import', TSX],
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    env: clientEnvironment(process.env, owner.env),
  });
  fs.closeSync(log);
  Object.assign(handle, { pid: child.pid!, paused: false, exited: false });
  const slot: Slot = {
    spec,
    handle,
    child,
    deaths,
    ops: new ClientOps(handle, inFlight, spec.slot + spec.concurrency * (spec.generation ?? 0), owner.onOp),
    locks: new SlotLockProcesses(spec.slot, handle, owner.pids, owner.runDir),
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  slot.locks.cgroup = spec.lockCgroup;
  owner.pids.add({ name: `client-${spec.slot}`, pid: child.pid!, marker: owner.runDir });
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (raw: unknown) => route(slot, raw, owner, resolve));
    // A send on a channel that closed (the child died meanwhile) emits 'error' here; its exit handler records it.
    child.on('error', (err) => owner.log(`fencepost: client ${spec.slot}: ${err.message}`));
    child.once('exit', (code, signal) => {
      handle.exited = true;
      slot.ops.recoverUnsent();
      owner.pids.remove(`client-${spec.slot}`);
      // Its lock process must not outlive it: execa's cleanup kills it on a normal exit, not on SIGKILL.
      slot.locks.reap();
      reject(
        new Error(`client ${spec.slot} exited (code ${code}) before it was ready; see logs/client-${spec.slot}.log`),
      );
      owner.ended(slot, code, signal);
    });
  });
  return { slot, ready };
}

function route(slot: Slot, raw: unknown, owner: SlotOwner, ready: () => void): void {
  const n = slot.spec.slot;
  const msg = checkedMessage(raw);
  if (typeof msg === 'string') {
    // A plugin calling process.send, or a bug of ours: said, and dropped — thrown from here, nothing catches it.
    owner.log(`fencepost: client ${n} sent a malformed message (${msg}); ignored`);
    return;
  }
  if (msg.type === 'ready') ready();
  else if (msg.type === 'ops') owner.together(() => msg.ops.forEach((sent) => slot.ops.received(sent)));
  else if (msg.type === 'log') fs.appendFileSync(clientLogFile(owner.runDir, n), `${msg.line}\n`);
  else if (msg.type === 'lock-process') {
    if (owner.isCurrent(slot)) slot.locks.reported(msg.pid, msg.command, msg.ended);
  } else if (msg.type === 'library-crash') slot.libraryCrash = { error: msg.error, message: msg.message };
  else if (msg.type === 'clock') owner.clockRead(msg.seq, msg.wallMs, BigInt(msg.monoNs));
  else if (msg.type === 'waiting') owner.driven({ slot: n, kind: 'waiting' });
  else if (msg.type === 'step-refused') owner.driven({ slot: n, kind: 'refused', seq: msg.seq, reason: msg.reason });
}

/** A send whose failure (the child gone, its channel closed) is logged: its exit handler records the death. */
export function sendTo(slot: Slot, msg: ToClient, log: (line: string) => void): void {
  if (!slot.child.connected) return;
  slot.child.send(msg, (err) => {
    if (err) log(`fencepost: could not send ${msg.type} to client ${slot.spec.slot}: ${err.message}`);
  });
}
