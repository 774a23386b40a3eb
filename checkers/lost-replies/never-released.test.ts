import { describe, expect, it } from 'vitest';
import { acquire, acquireReplyLost, at, ordered, release } from '../../test/support/lost-reply-history.ts';
import { checkLostReplies } from './check-lost-replies.ts';

/** Never released on literal histories (ms, TTL 2 s): p1 holds account 0, p2 waits from 15 ms. */
const check = (...events: Parameters<typeof ordered>) => checkLostReplies(ordered(...events), { ttlMs: 2000 });
const partition = (t: number, phase: 'start' | 'end') =>
  at(t, { process: 'nemesis', type: 'info', f: 'partition', value: { phase, targets: ['redis[0]'], params: {} } });

describe("never released: a release said ok, and the next acquirer still waited out the owner's key", () => {
  it('a waiter granted only 1.9 s after the release returned ok is a finding', () => {
    const r = check(acquire(1, 0, 10), acquire(2, 15, 2_000), release(1, 90, 100));
    expect(r.valid).toBe(false);
    expect(r.neverReleased).toMatchObject([{ process: 1, account: 0, waiters: [2], nextHolder: 2, waitMs: 1900 }]);
    expect(r.findings).toEqual([
      "never released: p1's release #4 of account 0 returned ok at 100 ms with 1 waiting, yet p2 was granted it only 1.9 s later, TTL 2.0 s: the release did not hand the lock over — the owner's key outlived it, or the waiters were waiting out a lease they had read",
    ]);
  });

  it('a key never granted again before the run ended says so', () => {
    const r = check(acquire(1, 0, 10), acquire(2, 15, 9_000, 'open'), release(1, 90, 100));
    expect(r.findings[0]).toMatch(/yet no client was granted it again before the run ended \(8\.9 s later\)/);
  });

  it("a wait that another client's orphaned grant explains is the orphan, not a release that never released", () => {
    // p1's release took effect at 100 ms; p3's SET NX took the key at 105 ms and its reply was dropped (a real
    // --lock=redis run said "never released" for each such shot before).
    const r = check(
      acquire(1, 0, 10),
      acquire(2, 15, 2_110),
      release(1, 90, 100),
      acquireReplyLost(3, { t0: 50, droppedAt: 105, t1: 700 }),
      acquire(3, 95, 600, 'info'),
    );
    expect(r.neverReleased).toEqual([]);
    expect(r.orphans).toMatchObject([{ process: 3, beyond: false }]);
    expect(r.valid).toBe(true);
  });

  it('a release that handed the lock over within a poll is no finding', () => {
    const r = check(acquire(1, 0, 10), acquire(2, 15, 130), release(1, 90, 100));
    expect(r.valid).toBe(true);
    expect(r.neverReleased).toEqual([]);
  });

  it('nobody waiting, a release reported not released, or another fault over the wait: no finding', () => {
    expect(check(acquire(1, 0, 10), release(1, 90, 100), acquire(2, 200, 2_500)).neverReleased).toEqual([]);
    const notReleased = [
      at(90, { process: 1, type: 'invoke', f: 'release', value: { account: 0 } }),
      at(100, { process: 1, type: 'ok', f: 'release', value: { account: 0, released: false } }),
    ];
    expect(check(acquire(1, 0, 10), acquire(2, 15, 2_000), notReleased).neverReleased).toEqual([]);
    const r = check(
      acquire(1, 0, 10),
      acquire(2, 15, 2_000),
      release(1, 90, 100),
      partition(50, 'start'),
      partition(1_500, 'end'),
    );
    expect(r.neverReleased).toEqual([]);
  });
});
