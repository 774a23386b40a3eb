import type { Journal } from '../history/journal.ts';
import type { Op } from '../history/op.ts';
import { SectionOpenings } from './section-openings.ts';

/** A client that has just entered its critical section: it holds the lock (as far as it knows) and has read. */
export interface CriticalSection {
  /** Client slot = process % concurrency: the OS process to signal. */
  slot: number;
  /** History process id. */
  process: number;
  account: number;
  /** Journal index of the `read` ok that opened the section (arrival order: the history is re-sorted by time later). */
  readIndex: number;
  /** That read's `time` (ns, the client's own stamp): what names the op once the history is in time order. */
  readTime: number;
  /** Journal index of this process's last `acquire` ok (-1 if none was seen: strategy without acquire?). */
  acquireIndex: number;
  /** That acquire's `time` (ns): a --watchdog client arms its first renewal timer then. */
  acquireTime?: number;
  /** When that acquire was sent (its invoke's `time`, ns): the lease began no earlier, and no later than its ok. */
  acquireSentTime?: number;
  /** The `time` (ns) of the last renewal its watchdog invoked since that acquire, if any: it armed the next then. */
  lastRenewTime?: number;
}

/** Where a fault finds the section it strikes: the next one any client opens (CriticalSections), or a scripted client's (scripted-sections.ts). */
export interface SectionFeed {
  /**
   * The next client to enter its critical section that `accept`s, after `onEnter` ran for it (synchronously, in
   * the journal listener). Null when `signal` aborts or `timeoutMs` passes first; `onEnter` then never runs.
   */
  next(
    signal: AbortSignal,
    timeoutMs: number,
    accept?: (s: CriticalSection) => boolean,
    onEnter?: (s: CriticalSection) => void,
  ): Promise<CriticalSection | null>;
}

interface Waiter {
  accept: (s: CriticalSection) => boolean;
  onEnter: (s: CriticalSection) => void;
  resolve: (s: CriticalSection | null) => void;
}

/**
 * The harness's view of which client is inside its critical section — between a `read` ok and its `write` —
 * built from the journal as ops arrive. This is how faults aim: `next()` hands the next client that enters
 * to a callback that runs synchronously inside the journal listener, i.e. while that client is still sleeping
 * its think time, so a SIGSTOP sent there lands before the client's write.
 */
export class CriticalSections implements SectionFeed {
  private readonly openings: SectionOpenings;
  private waiters: Waiter[] = [];
  private readonly unsubscribe: () => void;

  /**
   * `live`: a fault of the run declared `needs.liveOps`, so clients send each op as it completes. Without it their ops
   * arrive in batches, up to OP_BATCH_MS late, and a SIGSTOP aimed by them would land after the write it aims at.
   */
  constructor(
    journal: Journal,
    private readonly concurrency: number,
    private readonly live: boolean,
  ) {
    this.openings = new SectionOpenings(concurrency);
    this.unsubscribe = journal.onOp((op) => this.observe(op));
  }

  private observe(op: Op): void {
    const section = this.openings.observe(op);
    if (!section || this.waiters.length === 0) return;
    const i = this.waiters.findIndex((w) => w.accept(section));
    if (i < 0) return;
    const [w] = this.waiters.splice(i, 1);
    try {
      w.onEnter(section);
    } finally {
      w.resolve(section);
    }
  }

  /**
   * The next client to enter its critical section that `accept`s, after `onEnter` ran for it (synchronously, in
   * the journal listener). Null when `signal` aborts or `timeoutMs` passes first; `onEnter` then never runs.
   */
  next(
    signal: AbortSignal,
    timeoutMs: number,
    accept: (s: CriticalSection) => boolean = () => true,
    onEnter: (s: CriticalSection) => void = () => {},
  ): Promise<CriticalSection | null> {
    if (!this.live)
      throw new Error(
        'a fault waits for the next critical section in a run whose clients batch their ops: it must declare needs.liveOps (nemesis/fault-needs.ts)',
      );
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (s: CriticalSection | null) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(s);
      };
      const waiter: Waiter = { accept, onEnter, resolve: done };
      const cancel = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        done(null);
      };
      const onAbort = () => cancel();
      const timer = setTimeout(cancel, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.unsubscribe();
    for (const w of this.waiters.splice(0)) w.resolve(null);
  }
}
