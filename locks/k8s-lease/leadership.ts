import type { LeaderElector, ReleaseOutcome } from './leader-elector.ts';

/** How a term ended: who ended it, and what its release (ReleaseOnCancel) did. */
export interface TermEnd {
  /** The caller cancelled it (released the lock); false: the renewals failed for RenewDeadline and it stepped down. */
  byCaller: boolean;
  release: ReleaseOutcome | 'abandoned' | { failed: Error };
}

/** A wait that a cancel cuts short (a Go select on the timer and ctx.Done()); the global timers, as tests fake them. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * One term of leading: LeaderElector.renew, then its release. While `leading`, the holder's section runs — the context
 * client-go hands OnStartedLeading, which is cancelled only once the renew loop gives up: a renewal that keeps failing
 * (another holder has the record, or nobody answers) is retried every RetryPeriod until RenewDeadline has passed since
 * that round began, and only then does the holder stop leading. A holder stopped between rounds (SIGSTOP, a GC pause)
 * starts a fresh round when it resumes, so it goes on leading for up to RenewDeadline after it could have learnt that
 * it lost the lease. With ReleaseOnCancel (this row), the end of a term — the caller's cancel or the step-down — writes
 * the empty holder (leader-elector.ts tryRelease).
 */
export class Leadership {
  private leadingNow = true;
  private releaseAtEnd = true;
  private readonly cancel = new AbortController();
  private readonly ended: Promise<TermEnd>;

  constructor(private readonly elector: LeaderElector) {
    this.ended = this.run();
  }

  /** Whether the holder still leads, as the context its section runs under says. */
  get leading(): boolean {
    return this.leadingNow;
  }

  /** The caller cancels the term (client-go: the Run context is cancelled) and waits for its release. */
  stop(): Promise<TermEnd> {
    this.cancel.abort();
    return this.ended;
  }

  /** The process goes away without a release (a client closed while holding behaves like one that crashed). */
  abandon(): void {
    this.releaseAtEnd = false;
    this.cancel.abort();
  }

  /** wait.UntilWithContext(renew round, RetryPeriod): a round at once, then RetryPeriod after each one that succeeded. */
  private async run(): Promise<TermEnd> {
    const { retryPeriodMs, renewDeadlineMs } = this.elector.timings;
    const { signal } = this.cancel;
    while (!signal.aborted) {
      if (!(await this.renewRound(signal))) break;
      await pause(retryPeriodMs, signal);
    }
    this.leadingNow = false;
    const byCaller = signal.aborted;
    if (!this.releaseAtEnd) return { byCaller, release: 'abandoned' };
    try {
      return { byCaller, release: await this.elector.tryRelease(performance.now() + renewDeadlineMs) };
    } catch (err) {
      return { byCaller, release: { failed: err as Error } };
    }
  }

  /**
   * wait.PollUntilContextTimeout(RetryPeriod, RenewDeadline, immediate): tryAcquireOrRenew at once and on every tick of
   * a RetryPeriod ticker, each call under the round's deadline; true at the first success, false once the deadline has
   * passed or the term was cancelled.
   */
  private async renewRound(signal: AbortSignal): Promise<boolean> {
    const { retryPeriodMs, renewDeadlineMs } = this.elector.timings;
    const start = performance.now();
    const deadline = start + renewDeadlineMs;
    for (let tick = 1; ; tick++) {
      if ((await this.elector.tryAcquireOrRenew(deadline, signal)) === 'held') return true;
      if (signal.aborted) return false;
      const next = start + tick * retryPeriodMs;
      if (next >= deadline) {
        await pause(deadline - performance.now(), signal);
        return false;
      }
      await pause(next - performance.now(), signal);
      if (signal.aborted) return false;
    }
  }
}
