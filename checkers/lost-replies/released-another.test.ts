import { describe, expect, it } from 'vitest';
import { acquire, at, ordered, release } from '../../test/support/lost-reply-history.ts';
import { checkMutualExclusion } from '../mutual-exclusion.ts';
import { checkLostReplies } from './check-lost-replies.ts';

/**
 * Released another's lock on literal histories (ms, TTL 2 s): p0 holds account 0 and releases at 100 ms; its
 * release is answered only at 400 ms (its first reply lost, retried). p1 is granted at 150 ms, p2 at 450 ms.
 */
const check = (...events: Parameters<typeof ordered>) => {
  const h = ordered(...events);
  return { r: checkLostReplies(h, { ttlMs: 2000 }), overlaps: checkMutualExclusion(h).overlaps };
};
const replyLoss = (t: number, phase: 'start' | 'end', params: Record<string, unknown>) =>
  at(t, { process: 'nemesis', type: 'info', f: 'reply-loss', value: { phase, targets: ['client p0'], params } });

describe("released another's lock: a retried release freed a newer holder, and a third was granted over it", () => {
  const base = () => [acquire(0, 0, 10), release(0, 100, 400), acquire(1, 20, 150), acquire(2, 30, 450)];

  it('names which release freed which holder, where mutual exclusion sees only the overlap', () => {
    const { r, overlaps } = check(...base(), release(1, 900, 910));
    expect(overlaps.map((o) => [o.a.process, o.b.process])).toEqual([[1, 2]]);
    expect(r.valid).toBe(false);
    expect(r.releasedAnother).toMatchObject([{ account: 0, releaser: 0, freed: 1, next: 2, replyLossShot: null }]);
    expect(r.findings).toEqual([
      "released another's lock: p0's release #4 of account 0 was answered after p1 was granted (#5 at 150 ms), and p2 was granted (#7 at 450 ms) while p1 still held: the release deleted p1's key",
    ]);
  });

  it('names the reply-loss shot whose dropped reply the release retried after', () => {
    const { r } = check(
      ...base(),
      release(1, 900, 910),
      replyLoss(50, 'start', { process: 0, ttlMs: 2000, ownerValues: {}, pttlMs: {} }),
      replyLoss(420, 'end', {
        process: 0,
        account: 0,
        droppedOn: ['redis[0]'],
        valuesAfter: {},
        unanswered: [],
        releaseTime: 100e6,
      }),
    );
    expect(r.releasedAnother[0].replyLossShot).toBe(4);
    expect(r.findings[0]).toMatch(
      /^released another's lock: p0's release #5 of account 0 \(its first reply lost: reply-loss #4\)/,
    );
  });

  it('no finding when the holder had released first, or its lease could have run out', () => {
    const released = check(
      acquire(0, 0, 10),
      release(0, 100, 400),
      acquire(1, 20, 150),
      release(1, 300, 310),
      acquire(2, 30, 450),
    );
    expect(released.r.releasedAnother).toEqual([]);
    const expired = check(
      acquire(0, 0, 10),
      release(0, 100, 400),
      acquire(1, 20, 150),
      acquire(2, 30, 2_100),
      release(1, 2_500, 2_510),
    );
    expect(expired.r.releasedAnother).toEqual([]);
  });
});
