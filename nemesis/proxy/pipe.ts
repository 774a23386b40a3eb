/**
 * One direction of a proxied connection: reads its source, holds, delays, paces or drops what it read as the mode
 * says, and writes the rest to its sink in the order it came.
 *
 * A chunk's due time is fixed when it is read (latency), and chunks leave in order, so a later chunk never
 * overtakes an earlier one even when the latency is lowered or healed meanwhile. Under a hold the pipe keeps
 * reading into its queue up to a high-water mark, then stops reading, so bytes wait in the kernel buffers and the
 * sender's window closes as over a real network. Dropped bytes are counted and gone.
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type Direction, type Flow, type ProxyMode, delays, pacingOf } from './proxy-mode.ts';
import type { Piece } from './reply-aim.ts';

// Beyond this many queued bytes in one direction we stop reading, so a fast sender under latency
// is throttled by TCP rather than by our memory.
const HIGH_WATER_BYTES = 1 << 20;

/**
 * Something the link wants done once the bytes read before it have been written — handed to the kernel, so a reset
 * that follows cannot discard them from the send buffer (a reset after the replies before a dropped one).
 */
export type Action = () => void;

export interface PipeHooks {
  readonly direction: Direction;
  mode(): ProxyMode;
  /** The mode's flow for this direction, or the link's own (a hung or black-holed connection drops). */
  flow(): Flow;
  /** What the link makes of a chunk read: pieces to deliver or drop, and actions to run in their place. */
  intake(chunk: Buffer): Array<Piece | Action>;
  delivered(bytes: number): void;
  /** Bytes read while the mode held or delayed them. */
  held(bytes: number): void;
  dropped(bytes: number): void;
  /** This direction's reset-after budget is spent: reset the connection. */
  budgetSpent(): void;
}

type Item = Buffer | 'end' | Action;

export class Pipe {
  private readonly queue: Array<{ due: number; item: Item }> = [];
  private queuedBytes = 0;
  private sink: net.Socket | undefined;
  private sinkFull = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** A slice's or bandwidth's next write waits until this time. */
  private pacedUntil = 0;
  /** Writes not yet handed to the kernel: an action waits for them. */
  private unwritten = 0;
  /** Bytes this direction may still deliver before the connection is reset (reset-after), if counted. */
  budget: number | undefined;

  constructor(
    private readonly source: net.Socket,
    private readonly hooks: PipeHooks,
  ) {
    source.on('data', (chunk: Buffer) => {
      this.enqueue(hooks.intake(chunk));
      this.update();
    });
    source.on('end', () => {
      this.queue.push({ due: this.dueTime(), item: 'end' });
      this.update();
    });
  }

  get queued(): number {
    return this.queuedBytes;
  }

  attach(sink: net.Socket): void {
    this.sink = sink;
    sink.on('drain', () => {
      this.sinkFull = false;
      this.update();
    });
    this.update();
  }

  /** Takes pieces and actions in stream order (read now, or held back by the link and released now). */
  enqueue(items: Array<Piece | Action>): void {
    for (const item of items) {
      if (typeof item === 'function') {
        this.queue.push({ due: this.dueTime(), item });
        continue;
      }
      const n = item.bytes.length;
      if (n === 0) continue;
      if (item.drop || this.hooks.flow() === 'drop') {
        this.hooks.dropped(n);
        continue;
      }
      if (item.held || delays(this.hooks.mode(), this.hooks.direction) || this.hooks.flow() === 'hold')
        this.hooks.held(n);
      this.queue.push({ due: this.dueTime(), item: item.bytes });
      this.queuedBytes += n;
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  /** Re-evaluates reading and writing after anything changed. */
  update(): void {
    if (this.stopped) return;
    this.flush();
    if (this.stopped) return;
    if (this.sinkFull || this.queuedBytes >= HIGH_WATER_BYTES) this.source.pause();
    else this.source.resume();
  }

  private dueTime(): number {
    const mode = this.hooks.mode();
    return performance.now() + (mode.kind === 'latency' ? mode.ms : 0);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const sink = this.sink;
    let flow = this.hooks.flow();
    if (sink === undefined || flow === 'hold') return;
    const pacing = pacingOf(this.hooks.mode(), this.hooks.direction);
    if (pacing === undefined) this.pacedUntil = 0;
    while (this.queue.length > 0 && !this.sinkFull && !this.stopped && this.budget !== 0) {
      const head = this.queue[0];
      if (head.item instanceof Buffer && flow === 'drop') {
        this.queue.shift();
        this.queuedBytes -= head.item.length;
        this.hooks.dropped(head.item.length);
        continue;
      }
      const wait = Math.max(head.due, this.pacedUntil) - performance.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.update(), Math.ceil(wait));
        return;
      }
      const item = head.item;
      if (typeof item === 'function' && this.unwritten > 0) return; // the last write's callback flushes again
      if (item === 'end' || typeof item === 'function') {
        this.queue.shift();
        if (item === 'end') sink.end();
        else item();
        // An action may start a hold (hold-next-request): what follows it waits.
        flow = this.hooks.flow();
        if (flow === 'hold') return;
        continue;
      }
      const written = this.write(sink, head, pacing?.bytes);
      if (pacing) this.pacedUntil = performance.now() + pacing.delayMs(written);
    }
  }

  /** Writes the head chunk, or as much of it as pacing and the budget allow (the rest stays at the head). */
  private write(sink: net.Socket, head: { item: Item }, most = Infinity): number {
    const chunk = head.item as Buffer;
    const n = Math.min(chunk.length, most, this.budget ?? Infinity);
    if (n < chunk.length) head.item = chunk.subarray(n);
    else this.queue.shift();
    this.queuedBytes -= n;
    this.hooks.delivered(n);
    if (this.budget !== undefined) this.budget -= n;
    this.unwritten += 1;
    const written = () => {
      this.unwritten -= 1;
      if (this.unwritten > 0) return;
      // The reset waits for the last allowed byte to reach the kernel, so the peer has it before the RST.
      if (this.budget === 0) this.hooks.budgetSpent();
      else if (typeof this.queue[0]?.item === 'function') this.update();
    };
    if (!sink.write(chunk.subarray(0, n), written)) this.sinkFull = true;
    return n;
  }
}
