import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, type Event } from '../../test/support/test-history.ts';
import { replyLossEtcdRenew, ttlRefusal } from './inject.ts';

/** reply-loss-etcd-renew's story on literal data, as the judge tells it from its records. */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-etcd-renew',
  value: { phase, targets: ['client p1 → etcd[0], etcd[1], etcd[2]'], params },
});

describe("reply-loss-etcd-renew: the keep-alive's answer dropped → the lease's TTL back at its granted TTL → the client heard nothing", () => {
  const start = nemesis('start', { slot: 1, process: 1, account: 0, readIndex: 0, ttlMs: 6000 });
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      account: 0,
      droppedOn: ['etcd[0]'],
      lease: '7587899396592203525',
      answer: 'alive TTL 6',
      ttlAfterS: 5,
      grantedTtlS: 6,
      readAfterMs: 4,
      droppedBytes: 74,
      resets: 1,
      ...params,
    });
  const shotOf = (e: Event) => faultHits(history(start, e))['reply-loss-etcd-renew'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit', () => {
    const shot = shotOf(end());
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the answer to p1's keep-alive of lease 7587899396592203525 (alive TTL 6) was dropped on etcd[0] → 4 ms after the drop the lease had 5 s of its 6 s left: renewed → the proxy dropped 74 bytes on their way to p1 and reset the connection",
    );
  });

  it('a TTL a keep-alive period below the granted one, or no read, is a miss: nothing shows a renewal', () => {
    expect(gap(shotOf(end({ ttlAfterS: 4 })))).toBe('committed');
    expect(gap(shotOf(end({ ttlAfterS: undefined, readError: 'unavailable' })))).toBe('committed');
    // Read after the client's library could have renewed again: that renewal, not the dropped one, may show.
    expect(gap(shotOf(end({ readAfterMs: 140 })))).toBe('committed');
  });

  it('no drop, or no reset on record, is a miss naming its step', () => {
    expect(gap(shotOf(end({ droppedOn: [] })))).toBe('reply-dropped');
    expect(gap(shotOf(end({ resets: 0 })))).toBe('unacknowledged');
  });

  it('acts on etcd with a TTL whose keep-alive period exceeds a second', () => {
    expect(replyLossEtcdRenew.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toBeNull();
    expect(ttlRefusal({ ttlMs: 2000 })).toMatch(/give --ttl=6000 or more/);
    expect(ttlRefusal({ ttlMs: 6000 })).toBeNull();
  });
});
