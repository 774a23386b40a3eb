import { bankView, type BankView } from './bank-view.ts';
import { CLIENT_EXIT_NOTE } from './client-exit.ts';
import { faultWindows, type FaultWindow } from './fault-windows.ts';
import type { Op, ProcessId } from './op.ts';

/** An invocation and its completion. */
export interface OpPair<I = unknown, C = unknown> {
  invoke: Op<I>;
  /** null when the history ended before the op completed (it may or may not have taken effect). */
  completion: Op<C> | null;
}

/**
 * A history, read once: the ops and everything every checker and the report would otherwise re-derive from them —
 * which completion answers which invocation, the fault windows, the bank's final reads and writes. Modelled on
 * jepsen-io/history, whose `pair-index` serves Jepsen's checkers the same way. Build it with `History.of(ops)`;
 * the parts past the pair index are computed on first use and kept.
 *
 * Pairing follows the journal's rule (op.ts): a completion answers the open invocation of the same process.
 * Nemesis records are not paired; a client-exit note (a bare `info`, see client-exit.ts) is a note, not a
 * completion. The index tolerates what `validateHistory` reports, so a page can still be drawn from a broken
 * history: a completion with no open invocation is an orphan, and an invocation followed by another of the same
 * process before it completed stays open forever (`reinvoked` names both).
 */
export class History {
  readonly ops: readonly Op[];
  /** Client and harness invocations paired with their completions, in invocation order. */
  readonly pairs: readonly OpPair[];
  /** Invocations that never completed: the history ended first (or the process invoked again, see `reinvoked`). */
  readonly openInvokes: readonly Op[];
  /** Completions with no open invocation of their process (a malformed history). */
  readonly orphans: readonly Op[];
  /** Client-exit notes: a client died with nothing open (client-exit.ts). Not completions, so not in `orphans`. */
  readonly notes: readonly Op[];
  /** A second invocation of a process while its `pending` one was still open (a malformed history). */
  readonly reinvoked: readonly { invoke: Op; pending: Op }[];
  private readonly pairByIndex = new Map<number, OpPair>();
  private readonly opByIndex = new Map<number, Op>();
  private faultsMemo: FaultWindow[] | undefined;
  private bankMemo: BankView | undefined;

  private constructor(ops: readonly Op[]) {
    this.ops = ops;
    const pairs: OpPair[] = [];
    const orphans: Op[] = [];
    const reinvoked: { invoke: Op; pending: Op }[] = [];
    const notes: Op[] = [];
    const open = new Map<ProcessId, OpPair>();
    for (const op of ops) {
      this.opByIndex.set(op.index, op);
      if (op.process === 'nemesis') continue;
      if (op.type === 'info' && op.f === CLIENT_EXIT_NOTE) {
        notes.push(op);
        continue;
      }
      if (op.type === 'invoke') {
        const pending = open.get(op.process);
        if (pending) reinvoked.push({ invoke: op, pending: pending.invoke });
        const pair: OpPair = { invoke: op, completion: null };
        pairs.push(pair);
        open.set(op.process, pair);
        this.pairByIndex.set(op.index, pair);
        continue;
      }
      const pair = open.get(op.process);
      if (!pair) {
        orphans.push(op);
        continue;
      }
      pair.completion = op;
      open.delete(op.process);
      this.pairByIndex.set(op.index, pair);
    }
    this.pairs = pairs;
    this.openInvokes = pairs.filter((p) => p.completion === null).map((p) => p.invoke);
    this.orphans = orphans;
    this.reinvoked = reinvoked;
    this.notes = notes;
  }

  /** The History of these ops; a History is returned as it is, so a caller may pass either. */
  static of(ops: History | readonly Op[]): History {
    return ops instanceof History ? ops : new History(ops);
  }

  /** The op with this history index. */
  op(index: number): Op | undefined {
    return this.opByIndex.get(index);
  }

  /** The pair an invocation or a completion belongs to (by op or by history index). */
  pairOf(op: Op | number): OpPair | undefined {
    return this.pairByIndex.get(typeof op === 'number' ? op : op.index);
  }

  /** The completion of an invocation; null while it never completed, undefined if it is not a paired invocation. */
  completionOf(invoke: Op | number): Op | null | undefined {
    const pair = this.pairOf(invoke);
    if (!pair || pair.invoke.index !== (typeof invoke === 'number' ? invoke : invoke.index)) return undefined;
    return pair.completion;
  }

  /** The invocation a completion answers. */
  invokeOf(completion: Op | number): Op | undefined {
    const pair = this.pairOf(completion);
    const index = typeof completion === 'number' ? completion : completion.index;
    return pair && pair.completion?.index === index ? pair.invoke : undefined;
  }

  /** Fault windows from the nemesis records (see fault-windows.ts). */
  get faults(): readonly FaultWindow[] {
    return (this.faultsMemo ??= faultWindows(this.ops));
  }

  /** The bank workload's final reads, writes and acquires (see bank-view.ts). */
  get bank(): BankView {
    return (this.bankMemo ??= bankView(this));
  }

  /** ns since start of the latest op (0 for an empty history). */
  get endTime(): number {
    let end = 0;
    for (const op of this.ops) if (op.time > end) end = op.time;
    return end;
  }
}
