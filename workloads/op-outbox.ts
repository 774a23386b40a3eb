import type { OpInput } from '../history/op.ts';

/** One op as a client sends it: its place in the client's own order, the op, and its CLOCK_MONOTONIC stamp. */
export interface SentOp {
  /** 1, 2, 3… per client process: how the harness tells an invoke it already has from one it recovers. */
  seq: number;
  op: OpInput;
  /** `process.hrtime.bigint()` in decimal (JSON has no bigint). */
  at: string;
}

/** How long an invoke may wait for its completion before it goes to the harness alone (see OpOutbox). */
export const INVOKE_HOLD_MS = 10;

/**
 * In a run where no fault aims by the clients' ops (none declares `needs.liveOps`), how long a client holds its ops
 * before sending them together (see OpOutbox).
 */
export const OP_BATCH_MS = 50;

export interface OutboxIo {
  /**
   * Append one line to the client's in-flight file, synchronously: when this returns the kernel has it, so it
   * survives any death of the process (a SIGKILL, a plugin's process.exit inside the call) — it is not a message.
   */
  writeAhead(line: string): void;
  /** Send ops to the harness over IPC (one message, one wake-up of the harness). */
  send(ops: SentOp[]): void;
  /** Call `fn` after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
  /** CLOCK_MONOTONIC now (`process.hrtime.bigint()`): an invoke's second stamp, once it is written ahead. */
  now(): bigint;
}

/**
 * Where a client's ops go on their way to the harness, so that sending them costs nothing inside the call they
 * time.
 *
 * An invoke must be on record before its call starts: a process that dies inside the call (SIGKILL, a plugin's
 * process.exit) may have made its change, and an op that may have taken effect must never be missing from the
 * history. Sent over IPC, that record wakes the harness, which parses and journals it on the other core exactly
 * while the server answers the call: measured on this 2-core machine (ioredis `SET`, paced as a run's client),
 * p50 0.37 ms with no send, 0.59–0.74 ms with the invoke sent before the call, 0.49–0.55 ms sent just after the
 * request left, 0.42–0.47 ms written ahead to a file and sent with its completion. So the invoke is appended to the
 * client's in-flight file (one write(2), no wake-up) and held; its completion takes it to the harness in the same
 * message. An invoke whose call is still running after INVOKE_HOLD_MS is sent alone, so the harness still sees
 * long calls live (a write held by delay-write, an acquire waiting in a queue). When the process dies, the harness
 * reads the file and records every op it had not been sent (harness/client-pool.ts).
 *
 * Completions are sent at once when a fault of the run aims by them (pause-holder stops a client the moment its read is
 * `ok`). When none does (`batchMs` set: the run's ClientSpec.opBatchMs), a message per op is most of the harness's cost
 * — ~300 wake-ups a second for one Redis client, 0.06 cores of a harness against the servers' 0.07 (`bench throughput`)
 * — so every op, completions too, is written ahead to the file and they are all sent together `batchMs` after the first
 * of them: 20 messages a second per client, and that harness does 0.02–0.03 cores. Nothing is lost by the wait: what a
 * dead client never sent is in its file, completions included, and the harness recovers it at the exit; the stamps are
 * the client's, so an op's time does not move. The harness only sees it up to `batchMs` later (the progress line,
 * --stop-on-lost-update).
 */
export class OpOutbox {
  private seq = 0;
  private held: SentOp[] = [];
  private cancelHold: (() => void) | null = null;

  private readonly holdMs: number;
  private readonly batchMs: number | null;

  /** `holdMs`: an invoke's hold for its completion (INVOKE_HOLD_MS); `batchMs`: null, or the batching run's wait. */
  constructor(
    private readonly io: OutboxIo,
    { holdMs = INVOKE_HOLD_MS, batchMs = null }: { holdMs?: number; batchMs?: number | null } = {},
  ) {
    this.holdMs = holdMs;
    this.batchMs = batchMs;
  }

  /**
   * `beforeCall` (an invoke whose call starts when this returns): the line written ahead keeps `at`, and the op the
   * harness is sent is stamped again after that write — both before the call, so either is a true invoke time; the
   * file's, earlier, is the one a death recovers. So the write is not inside the interval the history records.
   */
  emit(op: OpInput, at: bigint, beforeCall = false): void {
    const sent: SentOp = { seq: ++this.seq, op, at: at.toString() };
    this.held.push(sent);
    if (op.type !== 'invoke' && this.batchMs === null) {
      this.flush();
      return;
    }
    this.io.writeAhead(`${JSON.stringify(sent)}\n`);
    if (beforeCall && op.type === 'invoke') sent.at = this.io.now().toString();
    this.cancelHold ??= this.io.setTimer(this.batchMs ?? this.holdMs, () => {
      this.cancelHold = null;
      this.flush();
    });
  }

  /** Send whatever is held now (before `stopped`, before exiting). */
  flush(): void {
    this.cancelHold?.();
    this.cancelHold = null;
    if (this.held.length === 0) return;
    const ops = this.held;
    this.held = [];
    this.io.send(ops);
  }
}

/**
 * The ops of a dead client's in-flight file that the harness was never sent: those past the last `seq` it received,
 * in order — invokes, and in a batching run completions too. A torn last line (the process died inside the write) is
 * skipped: an invoke's call never started, a completion's op stays open and ends `info` with the death.
 */
export function unsentOps(fileText: string, lastSeqReceived: number): SentOp[] {
  const out: SentOp[] = [];
  for (const line of fileText.split('\n')) {
    if (line.trim() === '') continue;
    let sent: SentOp;
    try {
      sent = JSON.parse(line) as SentOp;
    } catch {
      continue;
    }
    if (typeof sent?.seq === 'number' && sent.seq > lastSeqReceived && typeof sent.op?.type === 'string')
      out.push(sent);
  }
  return out;
}
