import fs from 'node:fs';
import { CLIENT_EXITED, CLIENT_EXIT_NOTE, type ClientExit } from '../history/client-exit.ts';
import type { OpInput } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import type { ClientProcess } from '../nemesis/nemesis.ts';
import type { SentOp } from '../workloads/op-outbox.ts';
import { lastLines } from './client-log-tail.ts';
import { InFlightLedger } from './in-flight-ledger.ts';

/**
 * The crash rule, in one place (Jepsen keeps it in the interpreter): a client process's ops are recorded as they
 * arrive, the invokes it wrote ahead but never sent are recovered when it ends, and when it dies every op it left
 * open completes as `info` (it may have taken effect) with its exit code and last log lines.
 */

/** A slot whose process died this many times is not restarted again: its clients keep dying, so say so and stop. */
export const MAX_CLIENT_DEATHS = 5;
/** Lines of a dead client's log that go into the history with its exit. */
const LAST_LINES = 5;

/**
 * Where a client's op goes: the journal. `at` is the client's own CLOCK_MONOTONIC stamp (none: stamp it now), `slot`
 * the slot whose process took it (its clock may run at a rate: the sink maps the stamp back by that slot's record).
 */
export type OpSink = (op: OpInput, at?: bigint, slot?: number) => void;

/**
 * Whether a client's exit is recorded as a death (its open ops end `info: client-exited`; the slot restarts unless
 * the run is stopping): the slot's current process, after the run started, and either mid-run or killed by the
 * nemesis. A kill-holder shot in the run's last moment is a death even when its exit is handled after the stop
 * began (on a loaded machine it was: the kill was recorded, the killed client's op stayed open). So is a lock
 * library ending its process during the stop's grace: its section's write is on record as a fail, lock-lost, and
 * the crash that caused it must be counted with it (CI once saw 17 lock-lost writes beside 16 library crashes).
 */
export function exitIsDeath(exit: {
  started: boolean;
  current: boolean;
  stopping: boolean;
  killedOnPurpose: boolean;
  libraryCrash: boolean;
}): boolean {
  return exit.started && exit.current && (!exit.stopping || exit.killedOnPurpose || exit.libraryCrash);
}

/** A death's record, and the slot's deaths counted with it (give-up when it reaches MAX_CLIENT_DEATHS). */
export function deathOf(d: {
  slot: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  logFile: string;
  deathsBefore: number;
  killedOnPurpose: boolean;
  libraryCrash: { error: string; message: string } | undefined;
}): { deaths: number; exit: ClientExit } {
  // A death the nemesis caused is the fault working, and one the lock library caused on purpose is the library's
  // behaviour, not the client failing: neither brings the give-up nearer.
  const deaths = d.killedOnPurpose || d.libraryCrash ? d.deathsBefore : d.deathsBefore + 1;
  const exit: ClientExit = {
    slot: d.slot,
    code: d.code,
    signal: d.signal,
    lastLines: lastLines(d.logFile, LAST_LINES),
    ...(d.libraryCrash ? { libraryCrash: d.libraryCrash } : {}),
  };
  if (deaths >= MAX_CLIENT_DEATHS) exit.gaveUpAfter = deaths;
  return { deaths, exit };
}

/** One client process's ops: recorded once each, the open ones completed as `info` when it dies. */
export class ClientOps {
  /** Open invocations by process id (the main loop's and its watchdog's): a death completes them as `info`. */
  private readonly open = new Map<number, OpInput>();
  /** Which of its ops, from IPC and at its exit from the in-flight file, to record (each exactly once). */
  private readonly ledger = new InFlightLedger();

  constructor(
    private readonly handle: ClientProcess,
    /** This process's in-flight file (workloads/op-outbox.ts): its invokes, written before each call started. */
    private readonly inFlight: string,
    /** Highest process id this slot has used, so a restarted client continues past it. */
    public maxProcess: number,
    private readonly onOp: OpSink,
  ) {}

  /** An op the client sent over IPC (in its own order); an invoke its exit already recovered from the file is skipped. */
  received(sent: SentOp): void {
    if (this.ledger.received(sent)) this.record(sent.op, BigInt(sent.at));
  }

  /**
   * The process ended: record the invokes it wrote ahead but never sent (it died inside a call, or was killed
   * with an invoke held for its completion), so an op that may have taken effect is in the history — then open,
   * so a death completes it as `info` like any other. Its file goes: everything in it is now in the journal.
   */
  recoverUnsent(): void {
    let text = '';
    try {
      text = fs.readFileSync(this.inFlight, 'utf8');
    } catch {
      // Never created: the process died before its first line ran.
    }
    for (const sent of this.ledger.recover(text)) this.record(sent.op, BigInt(sent.at));
    fs.rmSync(this.inFlight, { force: true });
  }

  private record(op: OpInput, at: bigint): void {
    if (typeof op.process === 'number') {
      const role = processRole(op.process);
      const main = role.kind === 'watchdog' ? role.of : op.process;
      if (role.kind === 'client') this.handle.process = op.process;
      this.maxProcess = Math.max(this.maxProcess, main);
      if (op.type === 'invoke') this.open.set(op.process, op);
      else this.open.delete(op.process);
    }
    this.onOp(op, at, this.handle.slot);
  }

  /** The death recorded: each open op completes as `info` carrying the exit; with none open, one note of it. */
  died(exit: ClientExit): void {
    if (this.open.size === 0) {
      this.onOp({ process: this.handle.process, type: 'info', f: CLIENT_EXIT_NOTE, value: exit, error: CLIENT_EXITED });
    }
    for (const [process, invoke] of this.open) {
      this.onOp({
        process,
        type: 'info',
        f: invoke.f,
        value: { ...(invoke.value as object), exit },
        error: CLIENT_EXITED,
      });
    }
    this.open.clear();
  }
}
