import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { replyLossEtcdRelease } from './inject.ts';

/** reply-loss-etcd-release's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const KEY = 'fencepost/lock/account-0';

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-etcd-release',
  value: { phase, targets: ['client p1 → etcd[0], etcd[1], etcd[2]'], params },
});

describe("reply-loss-etcd-release: the release's answer dropped → the holder's key gone → the holder never heard", () => {
  const start = nemesis('start', { slot: 1, process: 1, account: 0, readIndex: 0, ttlMs: 2000 });
  // Line 1 is p1's release invoke (1 ms), line 2 its completion.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      account: 0,
      droppedOn: ['etcd[1]'],
      key: KEY,
      revision: '77',
      read: true,
      releaseTime: 1_000_000,
      ...params,
    });
  const story = (e = end(), completion: Event = ok(1, 'release', { account: 0, released: false })) => [
    start,
    invoke(1, 'release', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-etcd-release'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the key gone, and the retried release found it gone and said so', () => {
    const shot = shotOf(story());
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      `the answer to p1's release of ${KEY} was dropped on etcd[1] and the connection reset → right after the drop p1's ${KEY} (revision 77) was gone: etcd held no such key → p1's release #2 reported the lock not released`,
    );
    expect(shotOf(story(end({ revisionAfter: '80' }))).hit).toBe(true);
    expect(shotOf(story(end(), info(1, 'release', { account: 0 }, 'deadline exceeded'))).hit).toBe(true);
  });

  it("the holder's incarnation still there, or no read, is a miss: the release never took effect", () => {
    expect(gap(shotOf(story(end({ revisionAfter: '77' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ read: undefined, readError: 'unavailable' }))))).toBe('committed');
  });

  it('no drop, or a release the client heard succeed, is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(1, 'release', { account: 0, released: true }))))).toBe('unacknowledged');
  });

  it('acts on etcd only', () => {
    expect(replyLossEtcdRelease.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toBeNull();
    expect(replyLossEtcdRelease.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd-go')).toMatch(/known for --lock=etcd only/);
  });
});
