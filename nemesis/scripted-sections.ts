import type { Journal } from '../history/journal.ts';
import type { Op } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import type { CriticalSection, SectionFeed } from './critical-sections.ts';
import { SectionOpenings } from './section-openings.ts';

/**
 * The critical sections of a scripted scenario's clients, one feed per client slot: a fault a script aims at `A`
 * strikes A's section — the one A is in now (a driven client waits between its read and its write for as long as
 * the script says), or, for `start pause A`, the next one A opens. Built from the journal like CriticalSections,
 * with the same section facts, so the executors aim and record exactly as on a schedule.
 */
export class ScriptedSections {
  /** Each slot's open section: its read ok seen, nothing invoked by that process since. */
  private readonly open = new Map<number, CriticalSection>();
  private readonly openings: SectionOpenings;
  private waiters: {
    slot: number;
    accept: (s: CriticalSection) => boolean;
    enter: (s: CriticalSection) => void;
    cancel: () => void;
  }[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    journal: Journal,
    private readonly concurrency: number,
  ) {
    this.openings = new SectionOpenings(concurrency);
    this.unsubscribe = journal.onOp((op) => this.observe(op));
  }

  private observe(op: Op): void {
    // Anything a client sends after its read closes its open section.
    if (typeof op.process === 'number' && op.type === 'invoke' && processRole(op.process).kind !== 'watchdog')
      this.open.delete(op.process % this.concurrency);
    const section = this.openings.observe(op);
    if (!section) return;
    const slot = section.slot;
    this.open.set(slot, section);
    const i = this.waiters.findIndex((w) => w.slot === slot && w.accept(section));
    if (i >= 0) this.waiters.splice(i, 1)[0].enter(section);
  }

  /** The feed a fault aimed at the client in `slot` strikes from. */
  forSlot(slot: number): SectionFeed {
    return {
      next: (signal, timeoutMs, accept = () => true, onEnter = () => {}) => {
        if (signal.aborted) return Promise.resolve(null);
        const now = this.open.get(slot);
        if (now && accept(now)) {
          onEnter(now);
          return Promise.resolve(now);
        }
        return new Promise<CriticalSection | null>((resolve) => {
          const finish = (s: CriticalSection | null) => {
            clearTimeout(timer);
            signal.removeEventListener('abort', cancel);
            this.waiters = this.waiters.filter((w) => w !== waiter);
            resolve(s);
          };
          const cancel = () => finish(null);
          const waiter = {
            slot,
            accept,
            cancel,
            enter: (s: CriticalSection) => {
              try {
                onEnter(s);
              } finally {
                finish(s);
              }
            },
          };
          const timer = setTimeout(cancel, timeoutMs);
          signal.addEventListener('abort', cancel, { once: true });
          this.waiters.push(waiter);
        });
      },
    };
  }

  close(): void {
    this.unsubscribe();
    for (const w of [...this.waiters]) w.cancel();
  }
}
