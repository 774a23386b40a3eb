import { describe, expect, it } from 'vitest';
import { acquire, acquireReplyLost, createReplyLost, ordered, release } from '../../test/support/lost-reply-history.ts';
import { checkLostReplies } from './check-lost-replies.ts';

/**
 * Double ownership after a retry on literal histories (ms, TTL 2 s): p1's acquire had its grant's reply dropped at
 * 20 ms, was retried by its library and ended ok at 300 ms; p2 waits for account 0 from 15 ms.
 */
const check = (...events: Parameters<typeof ordered>) => checkLostReplies(ordered(...events), { ttlMs: 2000 });
const shot = { t0: 5, droppedAt: 20, t1: 600 };

describe('double ownership: a retried acquire that ends up holding twice', () => {
  it('a count of two that one release does not clear: the next acquirer waits out the TTL', () => {
    const r = check(acquireReplyLost(1, shot), acquire(1, 10, 300), release(1, 400, 410), acquire(2, 15, 2_300));
    expect(r.valid).toBe(false);
    expect(r.doubleOwnership).toMatchObject([{ f: 'reply-loss-acquire', process: 1, account: 0, releaseIndex: 5 }]);
    // Said once, as double ownership: the never-released finding it explains is not repeated.
    expect(r.findings).toEqual([
      "double ownership: p1's acquire #1 of account 0 had its grant's reply lost (reply-loss-acquire #0), was retried and ended ok, and its release #5 returned ok without freeing the lock (p2 waited 1.9 s): held twice, released once",
    ]);
  });

  it('two lock nodes carrying its name as the ZooKeeper acquire was granted', () => {
    const nodes = { '_c_p1-lock-0000000001': 'abc', '_c_p1-lock-0000000002': 'abc' };
    const r = check(createReplyLost(1, shot, nodes), acquire(1, 10, 300));
    expect(r.doubleOwnership).toMatchObject([{ f: 'reply-loss-create', nodes: Object.keys(nodes) }]);
    expect(r.findings[0]).toMatch(
      /holding 2 lock nodes \(_c_p1-lock-0000000001, _c_p1-lock-0000000002\): the retry made a second$/,
    );
  });

  it('a retry that found its own grant and took it once (idempotent) is no finding', () => {
    expect(
      check(acquireReplyLost(1, shot), acquire(1, 10, 300), release(1, 400, 410), acquire(2, 15, 430)).findings,
    ).toEqual([]);
    const one = check(createReplyLost(1, shot, { '_c_p1-lock-0000000001': 'abc' }), acquire(1, 10, 300));
    expect(one.doubleOwnership).toEqual([]);
  });
});
