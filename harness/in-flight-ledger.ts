import { unsentOps, type SentOp } from '../workloads/op-outbox.ts';

/**
 * One client process's ops as the harness receives them, over IPC in the client's order and, at its exit, from its
 * in-flight file (workloads/op-outbox.ts): which to record. Every op is recorded once. An op recovered from the
 * file at the exit is skipped when its message arrives after the exit (Node may handle a child's `exit` before the
 * last messages of its channel); the completions in that message that the file did not hold (a client that sends
 * completions at once writes only invokes ahead) are still recorded.
 */
export class InFlightLedger {
  /** The last `seq` received over IPC: an op of the file past it was not (yet) received. */
  private lastSeq = 0;
  private readonly recovered = new Set<number>();

  /** An op received over IPC: whether to record it. */
  received(sent: SentOp): boolean {
    this.lastSeq = Math.max(this.lastSeq, sent.seq);
    return !this.recovered.has(sent.seq);
  }

  /** At the exit, the in-flight file's text: the ops to record now, in order. */
  recover(fileText: string): SentOp[] {
    const unsent = unsentOps(fileText, this.lastSeq);
    for (const s of unsent) this.recovered.add(s.seq);
    return unsent;
  }
}
