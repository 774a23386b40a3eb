import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, read, writeValue, type Event } from '../../test/support/test-history.ts';
import { replyLossDelete } from './inject.ts';

/** reply-loss-delete's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const DIR = '/fencepost/locks/account-0';
const NODE = 'c0-0a1b2c3d4e5f-lock-0000000042';

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-delete',
  value: { phase, targets: ['client p0 → zk[0], zk[1], zk[2]'], params },
});

describe("reply-loss-delete: the delete's reply dropped → the node was gone on the server → the holder never heard", () => {
  const start = (before: Record<string, string> = { [NODE]: '100000a3c5e0001' }) =>
    nemesis('start', { slot: 0, account: 0, readIndex: 3, process: 0, ttlMs: 2000, before });
  // The release's invoke is line 7: its time is 7 ms.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 0,
      account: 0,
      droppedOn: ['zk[1]'],
      path: `${DIR}/${NODE}`,
      after: {},
      readsApartMs: 14,
      releaseTime: 7_000_000,
      ...params,
    });
  const w = writeValue(100, 110, 0);
  const story = (
    e = end(),
    completion: Event = info(0, 'release', { account: 0 }, 'remove timed out'),
    s = start(),
  ) => [
    invoke(0, 'acquire', { account: 0 }),
    ok(0, 'acquire', { account: 0 }),
    ...read(0, 100, 0),
    s,
    invoke(0, 'write', w),
    ok(0, 'write', { ...w, writeId: 1 }),
    invoke(0, 'release', { account: 0 }),
    e,
    completion,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-delete'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: committed (the node gone within the session timeout) but unacknowledged', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'unacknowledged:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      `the reply to p0's delete of ${DIR}/${NODE} was dropped on zk[1] → ${NODE} (session 0x100000a3c5e0001) was gone from ${DIR} right after the drop, 14 ms after it was read → p0's release #7 ended info (remove timed out)`,
    );
  });

  it('a release that reports the lock not released (CURATOR-678: the node gone, the client told otherwise) is unacknowledged too', () => {
    const shot = shotOf(story(end(), ok(0, 'release', { account: 0, released: false })));
    expect(shot.hit).toBe(true);
    expect(shot.story![2].evidence).toBe("p0's release #9 reported the lock not released");
  });

  it("the node still there is a miss; gone after the session timeout, or not the holder's at the start, tells nothing", () => {
    const still = shotOf(story(end({ after: { [NODE]: '100000a3c5e0001' } })));
    expect(gap(still)).toBe('committed');
    expect(still.evidence).toContain(`${NODE} was still in ${DIR}: the delete never took effect`);
    expect(shotOf(story(end({ readsApartMs: 2000 }))).evidence).toMatch(/its session may have ended/);
    expect(gap(shotOf(story(end(), undefined, start({}))))).toBe('committed');
    expect(gap(shotOf(story(end(), undefined, start({ [NODE]: '0' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ readError: 'ZooKeeper session expired' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ path: undefined }))))).toBe('committed');
  });

  it('no drop, or a release the client heard done, is a miss that names its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(0, 'release', { account: 0, released: true }))))).toBe('unacknowledged');
  });

  it('acts on zookeeper only', () => {
    const servers = (zk: number) => ({ redis: zk ? 0 : 1, etcd: 0, zk });
    expect(replyLossDelete.refusal(servers(3), 'zookeeper')).toBeNull();
    expect(replyLossDelete.refusal(servers(0), 'redis')).toBe('--lock=redis uses no ZooKeeper server');
    expect(replyLossDelete.refusal(servers(3), 'curator')).toMatch(/known for --lock=zookeeper only/);
  });
});
