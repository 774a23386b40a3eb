import type { Op } from '../history/op.ts';
import { leaseRanOut } from '../faults/judging/story-steps.ts';
import { aimOf, processOf } from '../faults/evidence.ts';
import { faultFacts } from '../faults/catalogue.ts';
import { ofSlot } from './step-gate.ts';

/**
 * When a scripted client's lease has run out, by the judges' rule (story-steps.ts, leaseRanOut): a TTL since it was
 * kept from acting — since pause-holder stopped it (the strike), since its write went into delay-write's hold (the
 * write's invoke) — or, when nothing kept it, since it was granted the lock. `wait lease-expired A` waits for that
 * moment; the judge later checks the same span. Pure: fed ops in journal order.
 */
export class LeaseClock {
  private from: { ns: number; why: string } | null = null;
  /** A delay-write hold on the client that its write has not entered yet. */
  private holding = false;

  constructor(
    private readonly who: string,
    private readonly slot: number,
    private readonly concurrency: number,
    private readonly ttlMs: number,
  ) {}

  observe(op: Op): void {
    const aim = op.process === 'nemesis' ? aimOf(op) : undefined;
    const leaseFrom = op.process === 'nemesis' ? faultFacts(op.f)?.script?.leaseFrom : undefined;
    if (aim) {
      if (leaseFrom === 'strike' && aim.process % this.concurrency === this.slot)
        this.from = { ns: aim.atTime ?? op.time, why: 'was stopped' };
      return;
    }
    if (leaseFrom === 'held-write') {
      const p = processOf(op);
      if (p !== undefined && p % this.concurrency === this.slot)
        this.holding = (op.value as { phase?: string })?.phase === 'start';
      return;
    }
    if (!ofSlot(op, this.slot, this.concurrency)) return;
    if (op.f === 'acquire' && op.type === 'ok') this.from = { ns: op.time, why: 'was granted the lock' };
    if (op.f === 'write' && op.type === 'invoke' && this.holding) {
      this.from = { ns: op.time, why: 'sent its write into the hold' };
      this.holding = false;
    }
  }

  /** When the lease counts as run out (ns on the history's clock), or null while nothing says when it started. */
  expiresAt(): number | null {
    return this.from ? this.from.ns + this.ttlMs * 1e6 : null;
  }

  /** Whether it has run out at `nowNs`, and since what, in words. */
  ranOut(nowNs: number): { yes: boolean; evidence: string } {
    if (!this.from) return { yes: false, evidence: `nothing of ${this.who}'s lease is in the history yet` };
    const keptMs = Math.floor((nowNs - this.from.ns) / 1e6);
    return {
      yes: leaseRanOut(keptMs, this.ttlMs),
      evidence: `${keptMs} ms since ${this.who} ${this.from.why} (TTL ${this.ttlMs} ms)`,
    };
  }
}
