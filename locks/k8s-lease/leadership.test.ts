import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Attempt, LeaderElector, ReleaseOutcome } from './leader-elector.ts';
import { Leadership } from './leadership.ts';

/** TTL 2 s scaled: LeaseDuration 2000, RenewDeadline 1333, RetryPeriod 267 ms. */
const timings = { leaseDurationMs: 2000, renewDeadlineMs: 1333, retryPeriodMs: 267 };

/** An elector whose renewals succeed until `failFromMs` (on the fake clock) and are refused after; it logs its calls. */
function elector(failFromMs: number, release: ReleaseOutcome = 'released') {
  const calls: string[] = [];
  const fake = {
    timings,
    tryAcquireOrRenew: (): Promise<Attempt> => {
      const at = performance.now();
      const outcome: Attempt = at < failFromMs ? 'held' : 'refused';
      calls.push(`${at} ${outcome}`);
      return Promise.resolve(outcome);
    },
    tryRelease: (): Promise<ReleaseOutcome> => {
      calls.push(`${performance.now()} release`);
      return Promise.resolve(release);
    },
  };
  return { calls, elector: fake as unknown as LeaderElector };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'], now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a term of leading (client-go renew: Until × PollUntilContextTimeout, then ReleaseOnCancel)', () => {
  it('renews at once and every RetryPeriod; refused from 1000 ms, it leads on until that round is RenewDeadline old', async () => {
    const { calls, elector: e } = elector(1000);
    const term = new Leadership(e);
    await vi.advanceTimersByTimeAsync(2400);
    expect(term.leading).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(term.leading).toBe(false);
    // The round that began at 1068 ms tried on every tick of its ticker, then stepped down at 1068 + 1333 and released.
    expect(calls).toEqual([
      '0 held',
      '267 held',
      '534 held',
      '801 held',
      '1068 refused',
      '1335 refused',
      '1602 refused',
      '1869 refused',
      '2136 refused',
      '2401 release',
    ]);
    expect(await term.stop()).toEqual({ byCaller: false, release: 'released' });
  });

  it('a caller’s cancel ends it at once and releases; what the release found is the answer', async () => {
    const { calls, elector: e } = elector(Infinity, 'not-leader');
    const term = new Leadership(e);
    await vi.advanceTimersByTimeAsync(300);
    const end = term.stop();
    expect(term.leading).toBe(true);
    expect(await end).toEqual({ byCaller: true, release: 'not-leader' });
    expect(term.leading).toBe(false);
    expect(calls).toEqual(['0 held', '267 held', '300 release']);
  });

  it('abandoned (the client closes while holding), it writes nothing: the lease runs out by itself', async () => {
    const { calls, elector: e } = elector(Infinity);
    const term = new Leadership(e);
    await vi.advanceTimersByTimeAsync(100);
    term.abandon();
    expect(await term.stop()).toEqual({ byCaller: true, release: 'abandoned' });
    expect(calls).toEqual(['0 held']);
  });
});
