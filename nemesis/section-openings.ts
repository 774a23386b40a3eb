import type { AccountRef } from '../history/bank.ts';
import type { Op } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import type { CriticalSection } from './critical-sections.ts';

/**
 * What a critical section is, read from the journal op by op: each client's last acquire (when it was sent and
 * granted) and its watchdog's last renewal, so that a client's `read` ok opens a section with those facts. The one
 * reading both feeds use: CriticalSections (a schedule's next section) and ScriptedSections (a script's client's).
 */
export class SectionOpenings {
  private readonly lastAcquire = new Map<number, { index: number; time: number; sent?: number }>();
  private readonly lastAcquireSent = new Map<number, number>();
  private readonly lastRenew = new Map<number, number>();

  constructor(private readonly concurrency: number) {}

  /** Takes in one op; the section it opened (a client's `read` ok), else null. */
  observe(op: Op): CriticalSection | null {
    if (typeof op.process !== 'number') return null;
    const role = processRole(op.process);
    if (role.kind === 'watchdog') {
      if (op.f === 'renew' && op.type === 'invoke') this.lastRenew.set(role.of, op.time);
      return null;
    }
    if (op.f === 'acquire' && op.type === 'invoke') this.lastAcquireSent.set(op.process, op.time);
    if (op.f === 'acquire' && op.type === 'ok') {
      const sent = this.lastAcquireSent.get(op.process);
      this.lastAcquire.set(op.process, { index: op.index, time: op.time, ...(sent !== undefined ? { sent } : {}) });
      this.lastRenew.delete(op.process);
    }
    if (op.f !== 'read' || op.type !== 'ok') return null;
    const acquired = this.lastAcquire.get(op.process);
    const renewed = this.lastRenew.get(op.process);
    return {
      slot: op.process % this.concurrency,
      process: op.process,
      account: (op.value as AccountRef).account,
      readIndex: op.index,
      readTime: op.time,
      acquireIndex: acquired?.index ?? -1,
      ...(acquired ? { acquireTime: acquired.time } : {}),
      ...(acquired?.sent !== undefined ? { acquireSentTime: acquired.sent } : {}),
      ...(renewed !== undefined ? { lastRenewTime: renewed } : {}),
    };
  }
}
