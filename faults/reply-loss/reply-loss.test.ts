import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, read, writeValue, type Event } from '../../test/support/test-history.ts';
import { committed, serverEffect, type ReleaseReads } from './server-effect.ts';
import { replyLoss } from './inject.ts';

/**
 * reply-loss on literal data: what the server shows after the drop (server-effect.ts), and the story the judge tells
 * from the records and the history (times 1 ms per line).
 */

const reads = (over: Partial<ReleaseReads> = {}): ReleaseReads => ({
  droppedOn: ['redis[0]'],
  ownerValues: { 'redis[0]': 'owner-a' },
  pttlMs: { 'redis[0]': 1900 },
  valuesAfter: {},
  unanswered: [],
  readsApartMs: 120,
  ...over,
});

describe('reply-loss: the server effect of a release whose reply was dropped', () => {
  it("the owner's key gone within its PTTL is committed", () => {
    const e = serverEffect(reads());
    expect(e).toEqual({ acted: ['redis[0]'], untouched: [], unknown: [] });
    expect(committed(e)).toBe(true);
  });

  it("another owner's value under the key is committed too: the release deleted it and someone took it", () => {
    expect(committed(serverEffect(reads({ valuesAfter: { 'redis[0]': 'owner-b' } })))).toBe(true);
  });

  it("the owner's value still there is no server effect: the request never took effect, a miss", () => {
    const e = serverEffect(reads({ valuesAfter: { 'redis[0]': 'owner-a' } }));
    expect(e).toEqual({ acted: [], untouched: ['redis[0]'], unknown: [] });
    expect(committed(e)).toBe(false);
  });

  it('a key that may have expired, a node that did not answer, or no owner key at the start tell nothing', () => {
    const expired = serverEffect(reads({ readsApartMs: 1900 }));
    expect(expired.unknown).toEqual(["redis[0]'s key may have expired (PTTL 1900 ms, dropped after 1900 ms)"]);
    expect(committed(expired)).toBe(false);
    expect(serverEffect(reads({ unanswered: ['redis[0]'] })).unknown).toEqual(['redis[0] did not answer']);
    expect(serverEffect(reads({ ownerValues: {} })).unknown).toEqual(['redis[0] held no owner key']);
  });

  it('Redlock: gone on the masters that held it, none untouched, is committed; one untouched is not', () => {
    const five = ['redis[0]', 'redis[1]', 'redis[2]', 'redis[3]', 'redis[4]'];
    const held = { 'redis[0]': 'a', 'redis[1]': 'a', 'redis[2]': 'a' };
    const pttl = { 'redis[0]': 1900, 'redis[1]': 1900, 'redis[2]': 1900 };
    const all = serverEffect(reads({ droppedOn: five, ownerValues: held, pttlMs: pttl }));
    expect(all.acted).toEqual(['redis[0]', 'redis[1]', 'redis[2]']);
    expect(committed(all)).toBe(true);
    expect(
      committed(
        serverEffect(reads({ droppedOn: five, ownerValues: held, pttlMs: pttl, valuesAfter: { 'redis[2]': 'a' } })),
      ),
    ).toBe(false);
  });
});

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss',
  value: { phase, targets: ['client p0 → redis[0]'], params },
});

describe("reply-loss: the release's reply dropped → Redis had acted → the holder never heard", () => {
  const start = nemesis('start', {
    slot: 0,
    process: 0,
    account: 0,
    readIndex: 3,
    ttlMs: 2000,
    ownerValues: { 'redis[0]': 'owner-a' },
    pttlMs: { 'redis[0]': 1990 },
  });
  // The release's invoke is line 7: its time is 7 ms.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      hit: true,
      process: 0,
      account: 0,
      droppedOn: ['redis[0]'],
      readsApartMs: 9,
      valuesAfter: {},
      unanswered: [],
      releaseTime: 7_000_000,
      ...params,
    });
  const w = writeValue(100, 110, 0);
  const story = (e = end(), completion: Event = info(0, 'release', { account: 0 }, 'Command timed out')) => [
    invoke(0, 'acquire', { account: 0 }),
    ok(0, 'acquire', { account: 0 }),
    ...read(0, 100, 0),
    start,
    invoke(0, 'write', w),
    ok(0, 'write', { ...w, writeId: 1 }),
    invoke(0, 'release', { account: 0 }),
    e,
    completion,
  ];
  const shotOf = (events: (Event | Event[])[]) => faultHits(history(...events))['reply-loss'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: committed but unacknowledged', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'unacknowledged:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the reply to p0's release was dropped on redis[0] → the key was gone on redis[0] 9 ms after the section began, within its PTTL → p0's release #7 ended info (Command timed out)",
    );
  });

  it("the owner's key still on the server is a miss: the request never took effect", () => {
    const shot = shotOf(story(end({ hit: false, valuesAfter: { 'redis[0]': 'owner-a' } })));
    expect(shot.hit).toBe(false);
    expect(gap(shot)).toBe('committed');
    expect(shot.evidence).toContain("the owner's key was still on redis[0]: the release never took effect");
  });

  it('Redlock: a release that reports the lock not released (no node answered it) is unacknowledged too', () => {
    const shot = shotOf(story(end(), ok(0, 'release', { account: 0, released: false })));
    expect(shot.hit).toBe(true);
    expect(shot.story![2].evidence).toBe("p0's release #9 reported the lock not released");
  });

  it('no drop, or a release the client heard answered, is a miss that names its step', () => {
    expect(gap(shotOf(story(end({ hit: false, droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(0, 'release', { account: 0, released: true }))))).toBe('unacknowledged');
  });
});

describe('reply-loss: the locks it can aim at', () => {
  const servers = (redis: number) => ({ redis, etcd: redis ? 0 : 3, zk: 0 });
  it('acts on redis and redlock; refuses a lock without Redis, and a Redis lock whose release it does not know', () => {
    expect(replyLoss.refusal(servers(1), 'redis')).toBeNull();
    expect(replyLoss.refusal(servers(5), 'redlock')).toBeNull();
    expect(replyLoss.refusal(servers(0), 'etcd')).toBe('--lock=etcd uses no Redis node');
    expect(replyLoss.refusal(servers(1), 'redis-lock')).toMatch(/known for --lock=redis, redlock only/);
  });
});
