import { describe, expect, it } from 'vitest';
import {
  acquire,
  acquireReplyLost,
  createReplyLost,
  ordered,
  pgLockReplyLost,
} from '../../test/support/lost-reply-history.ts';
import { checkLostReplies, lostReplyLines } from './check-lost-replies.ts';

/**
 * Orphaned lock on literal histories (ms): p1's SET NX is granted at about 20 ms and its reply dropped; p1's acquire
 * times out at 520 ms (its retry budget: 500 ms); p2, waiting since 15 ms, is granted when the key is gone.
 */
const check = (...events: Parameters<typeof ordered>) => checkLostReplies(ordered(...events), { ttlMs: 2000 });

describe('orphaned lock: from the dropped grant to the server letting the lock go, against the TTL', () => {
  it('an orphan that blocked every acquirer for up to the TTL is a liveness figure, not a defect', () => {
    const r = check(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 1950),
    );
    expect(r.valid).toBe(true);
    expect(r.orphans).toMatchObject([
      { process: 1, account: 0, endedBy: 'grant', nextHolder: 2, durationMs: 1930, budgetMs: 500, beyond: false },
    ]);
    expect(r.findings).toEqual([
      "orphaned lock on account 0 for 1.9 s, TTL 2.0 s: p1's acquire #1 was granted (its key on the server) but its reply was lost (reply-loss-acquire #0) and it ended info; the server kept it until p2 was granted — within the TTL plus p1's retry budget (500 ms): a lease's expected cost",
    ]);
  });

  it('ends at the TTL its PTTL gives when nobody is granted before the run ends', () => {
    const r = check(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 3000, 'open'),
    );
    expect(r.orphans[0]).toMatchObject({ endedBy: 'ttl', durationMs: 1980, beyond: false });
  });

  it('a key that never expires and outlives the TTL plus the retry budget is a finding', () => {
    const r = check(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }, {}, -1),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 8000, 'open'),
    );
    expect(r.valid).toBe(false);
    expect(r.orphans[0]).toMatchObject({ endedBy: 'run-end', neverExpires: true, beyond: true });
    expect(r.findings[0]).toMatch(
      /^orphaned lock on account 0 for 8\.0 s, TTL 2\.0 s: .* to the end of the run \(its PTTL read -1: it never expires\) — past the TTL plus p1's retry budget \(500 ms\)/,
    );
  });

  it('a ZooKeeper node kept on a live session past the TTL plus the retry budget is a finding', () => {
    const r = check(
      createReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 120, 'fail'),
      acquire(2, 15, 6000),
    );
    expect(r.orphans).toMatchObject([{ f: 'reply-loss-create', durationMs: 5980, budgetMs: 100, beyond: true }]);
    expect(r.valid).toBe(false);
  });

  it('no orphan when the drop had no server effect, or the client heard its grant after all', () => {
    const uncommitted = check(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }, { valuesAfter: {} }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 1950),
    );
    expect(uncommitted.orphans).toEqual([]);
    const heard = check(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 520),
      acquire(2, 15, 3000, 'open'),
    );
    expect(heard.orphans).toEqual([]);
    expect(heard.findings).toEqual([]);
  });

  it('a session advisory lock has no lease: its orphan is measured against the retry budget alone, and says no TTL bounds it', () => {
    // p1's acquire gives up at 8 s; the heal resets its connection then, its backend ends and p2 is granted at once.
    const r = check(
      pgLockReplyLost(1, { t0: 5, droppedAt: 20, t1: 8020 }),
      acquire(1, 10, 8020, 'info'),
      acquire(2, 15, 8050),
    );
    expect(r.orphans).toMatchObject([
      { f: 'reply-loss-pg-lock', endedBy: 'grant', nextHolder: 2, durationMs: 8030, budgetMs: 8000, beyond: false },
    ]);
    expect(r.orphans[0].ttlMs).toBeNull();
    expect(r.valid).toBe(true);
    // Two such orphans: the summary counts the second against the same yardstick, with no TTL in it.
    const two = check(
      pgLockReplyLost(1, { t0: 5, droppedAt: 20, t1: 8020 }),
      acquire(1, 10, 8020, 'info'),
      acquire(2, 15, 8050),
      pgLockReplyLost(3, { t0: 9000, droppedAt: 9020, t1: 17020 }),
      acquire(3, 9010, 17020, 'info'),
      acquire(4, 9015, 17050),
    );
    expect(lostReplyLines(two).at(-1)).toBe(
      "1 more orphaned lock like it (8.0 s each, all 2 within their clients' retry budget (no lease: no TTL); the report lists every one)",
    );
    expect(r.findings).toEqual([
      "orphaned lock on account 0 for 8.0 s, no lease (a session advisory lock lasts as long as its Postgres session): p1's acquire #1 was granted (its advisory lock (backend 4242) on the server) but its reply was lost (reply-loss-pg-lock #0) and it ended info; the server kept it until p2 was granted — within p1's retry budget (8.0 s): the session ended with its connection, and nothing else would have ended it (no TTL; over a dead path TCP's own timeouts decide)",
    ]);
  });

  it("a session lock kept past the client's retry budget is a finding: no TTL would ever end it", () => {
    const r = check(
      pgLockReplyLost(1, { t0: 5, droppedAt: 20, t1: 9000 }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 9000, 'open'),
    );
    expect(r.orphans[0]).toMatchObject({ endedBy: 'run-end', beyond: true });
    expect(r.valid).toBe(false);
    expect(r.findings[0]).toMatch(/past p1's retry budget \(500 ms\), and no TTL ends it/);
    // Nothing read holding the key: no grant, no orphan.
    const none = check(
      pgLockReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }, { after: { '4242': '' } }),
      acquire(1, 10, 520, 'info'),
    );
    expect(none.orphans).toEqual([]);
  });
});
