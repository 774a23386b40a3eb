import { CANCELLED, underContext } from './context-deadline.ts';
import type { EtcdLeaseLock } from './etcd-lease-lock.ts';
import {
  firstRecord,
  heldByAnother,
  isLeader,
  isLeaseValid,
  nextRecord,
  NOTHING_OBSERVED,
  observeRead,
  observeWrite,
  releaseRecord,
  type ElectionRecord,
  type ElectionTimings,
  type Observation,
} from './election-record.ts';

/** The holder's wall clock as client-go stamps a record (metav1.Now()): written, never compared. */
const wallNow = (): string => new Date().toISOString();

/** What tryRelease found: it wrote the empty holder, or its last observation named someone else (nothing written). */
export type ReleaseOutcome = 'released' | 'not-leader';

/** What one tryAcquireOrRenew came to (see there). */
export type Attempt = 'held' | 'refused' | 'unknown';

/**
 * client-go's LeaderElector for one Lease (one account): the observation it keeps between calls and the two calls
 * that read and write the record, in leaderelection.go's order. Every call is under a context (`deadlineMs`,
 * `signal`): a cut-off call counts as failed, as a cancelled request does in Go. The loops around them — acquire's
 * JitterUntil, renew's Until/PollUntilContextTimeout — are the client's (k8s-lease.ts) and leadership.ts.
 */
export class LeaderElector {
  private observed: Observation = NOTHING_OBSERVED;

  constructor(
    private readonly lock: EtcdLeaseLock,
    readonly identity: string,
    readonly timings: ElectionTimings,
  ) {}

  /** The record this elector last saw or wrote (its token is the transitions count of the term it holds). */
  get record(): ElectionRecord | null {
    return this.observed.record;
  }

  /** IsLeader: by the last observation, which may be stale — a paused elector still believes it. */
  isLeader(): boolean {
    return isLeader(this.observed, this.identity);
  }

  private wrote(record: ElectionRecord): void {
    this.observed = observeWrite(this.observed, record, performance.now());
  }

  /**
   * tryAcquireOrRenew: `held` when this elector holds the lease afterwards (acquired or renewed) — client-go's true.
   * Its false is split in two for the history: `refused` when the server said no (another holder's lease is valid,
   * the record changed under the compare-and-swap), `unknown` when a call failed or was cut off, so that a write may
   * have taken effect or the server could not be asked at all.
   */
  async tryAcquireOrRenew(deadlineMs: number, signal?: AbortSignal): Promise<Attempt> {
    try {
      return await this.acquireOrRenew(deadlineMs, signal);
    } catch {
      return 'unknown';
    }
  }

  private async acquireOrRenew(deadlineMs: number, signal?: AbortSignal): Promise<Attempt> {
    const { leaseDurationMs } = this.timings;
    const now = performance.now();
    const wall = wallNow();
    const call = <T>(p: Promise<T>) => underContext(p, deadlineMs, signal);
    const outcome = (r: boolean | typeof CANCELLED): Attempt => (r === CANCELLED ? 'unknown' : r ? 'held' : 'refused');
    // 1. The leader's fast path: update optimistically over the record it last saw.
    if (this.isLeader() && isLeaseValid(this.observed, now)) {
      const mine = nextRecord(this.observed.record!, true, this.identity, leaseDurationMs, wall);
      const ok = await call(this.lock.update(mine)).catch(() => false);
      if (ok === true) {
        this.wrote(mine);
        return 'held';
      }
    }
    // 2. Obtain or create the record.
    const read = await call(this.lock.get());
    if (read === CANCELLED) return 'unknown';
    if (read === null) {
      const first = firstRecord(this.identity, leaseDurationMs, wall);
      const created = outcome(await call(this.lock.create(first)));
      if (created === 'held') this.wrote(first);
      return created;
    }
    // 3. Check the identity and the time — on this elector's own clock, since it last saw the bytes change.
    this.observed = observeRead(this.observed, read.raw, read.record, performance.now());
    if (heldByAnother(this.observed, this.identity, now)) return 'refused';
    // 4. Take or renew it, over the version just read.
    const mine = nextRecord(read.record, this.isLeader(), this.identity, leaseDurationMs, wall);
    const updated = outcome(await call(this.lock.update(mine)));
    if (updated === 'held') this.wrote(mine);
    return updated;
  }

  /**
   * tryRelease (ReleaseOnCancel), retried on a conflict until `deadlineMs` as client-go retries it within RenewDeadline.
   * Whether to write is decided by IsLeader — the last observation — and not by the record it reads first: an elector
   * that has not yet seen its successor writes the empty holder over the successor's record. Throws when the record
   * cannot be read or written by the deadline (client-go logs it and gives up: the lease then runs out by itself).
   */
  async tryRelease(deadlineMs: number): Promise<ReleaseOutcome> {
    for (;;) {
      const read = await underContext(this.lock.get(), deadlineMs);
      if (read === CANCELLED) throw new Error(`k8s-lease: release of ${this.lock.key}: no answer within RenewDeadline`);
      if (read === null) throw new Error(`k8s-lease: release of ${this.lock.key}: lease lock not found`);
      if (!this.isLeader()) return 'not-leader';
      const released = releaseRecord(read.record, wallNow());
      const ok = await underContext(this.lock.update(released), deadlineMs);
      if (ok === CANCELLED) throw new Error(`k8s-lease: release of ${this.lock.key}: no answer within RenewDeadline`);
      if (ok) {
        this.wrote(released);
        return 'released';
      }
    }
  }
}
