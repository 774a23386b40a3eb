import fs from 'node:fs';
import type { Op, OpInput } from './op.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';

/** Nanoseconds since `origin` on the monotonic clock: wall-clock jumps (our own clock faults!) can't move it. */
export function monotonicNs(origin: bigint): number {
  return Number(process.hrtime.bigint() - origin);
}

/**
 * The append-only history file of a run (store/run-dir.ts names it). Each op is written with one write(2) as it happens, so a crash of the harness
 * keeps every op before it (the kernel has the bytes; we don't fsync per op — an OS crash is not a failure
 * mode we test, and fsync per op would cost more than the ops). `index` is assigned here, in arrival order.
 * `time` is where the op happened: a client's ops carry the client's own CLOCK_MONOTONIC stamps
 * (`appendStamped`), the harness's and the nemesis's are stamped on append. A message that arrives late thus
 * keeps its true time, and arrival order can differ from time order; `sealInTimeOrder` (time-order.ts) puts the
 * file in time order once the run is over, before anything checks it.
 */
export class Journal {
  private fd: number | null;
  private next = 0;
  private listeners: ((op: Op) => void)[] = [];
  /** Inside `batch`: the lines and ops appended so far, written and announced when it ends. */
  private batched: { lines: string[]; ops: Op[] } | null = null;
  readonly origin: bigint;

  constructor(
    readonly file: string,
    origin: bigint = process.hrtime.bigint(),
  ) {
    this.fd = fs.openSync(file, 'a', RUN_FILE_MODE);
    this.origin = origin;
  }

  get size(): number {
    return this.next;
  }

  append<V>(input: OpInput<V>): Op<V> {
    const op: Op<V> = {
      index: this.next++,
      time: input.time ?? monotonicNs(this.origin),
      process: input.process,
      type: input.type,
      f: input.f,
      value: input.value,
    };
    if (input.error !== undefined) op.error = input.error;
    const line = `${JSON.stringify(op)}\n`;
    if (this.batched) {
      this.batched.lines.push(line);
      this.batched.ops.push(op as Op);
      return op;
    }
    if (this.fd !== null) fs.writeSync(this.fd, line);
    for (const l of this.listeners) l(op as Op);
    return op;
  }

  /**
   * Runs `fn`, appending what it appends with one write(2) when it returns (or throws), then calling the listeners
   * for each of those ops in order — still each after it is on disk. For ops that arrive together (a client sends
   * an invoke with its completion: workloads/op-outbox.ts): one system call instead of one per op. Nested calls
   * join the outer one.
   */
  batch<T>(fn: () => T): T {
    if (this.batched) return fn();
    const batch: { lines: string[]; ops: Op[] } = { lines: [], ops: [] };
    this.batched = batch;
    try {
      return fn();
    } finally {
      this.batched = null;
      if (this.fd !== null && batch.lines.length > 0) fs.writeSync(this.fd, batch.lines.join(''));
      for (const op of batch.ops) for (const l of this.listeners) l(op);
    }
  }

  /**
   * An op stamped elsewhere on the host: `at` is that process's `process.hrtime.bigint()` (CLOCK_MONOTONIC) — as real
   * time: a caller whose process's monotonic clock a rate moved maps it back first (harness/launch-clients.ts).
   */
  appendStamped<V>(input: OpInput<V>, at: bigint): Op<V> {
    return this.append({ ...input, time: this.sinceOrigin(at) });
  }

  /** Nanoseconds from this run's origin to a CLOCK_MONOTONIC reading taken by any process on this host. */
  sinceOrigin(at: bigint): number {
    return Number(at - this.origin);
  }

  /** Called synchronously for every op after it is on disk: the nemesis aims with this, the progress line counts. */
  onOp(listener: (op: Op) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
