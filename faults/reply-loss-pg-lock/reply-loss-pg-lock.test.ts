import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { holdersOf, holdsOf, rowKey, statementKey } from './advisory-holds.ts';
import { AIMABLE_LOCKS, pgAimRefusal, replyLossPgLock } from './inject.ts';

/** reply-loss-pg-lock on literal data: the advisory keys read from Postgres, and the story its judge tells (1 ms a line). */

describe('the advisory key of a statement and of a pg_locks row', () => {
  it("reads the keys advisory-lock's statements name, in either form", () => {
    expect(statementKey('SELECT pg_advisory_lock(-1409283, 77)')).toBe('-1409283,77');
    expect(statementKey('SELECT pg_advisory_unlock(5,-6)')).toBe('5,-6');
    expect(statementKey('select pg_try_advisory_lock(123456789012)')).toBe('123456789012');
    expect(statementKey('SELECT pg_advisory_lock($1, $2)')).toBeUndefined();
    expect(statementKey('UPDATE accounts SET balance = 1')).toBeUndefined();
    expect(statementKey(undefined)).toBeUndefined();
  });

  it("writes pg_locks' unsigned oids back as the int4 keys they were given as", () => {
    // -1409283 as an oid: 2^32 - 1409283.
    expect(rowKey({ classid: '4293558013', objid: '77', objsubid: 2 })).toBe('-1409283,77');
    expect(rowKey({ classid: '0', objid: '42', objsubid: 1 })).toBe('42');
    expect(rowKey({ classid: '4294967295', objid: '4294967295', objsubid: 1 })).toBe('-1');
    expect(rowKey({ classid: null, objid: null, objsubid: null })).toBeUndefined();
  });

  it('groups the rows by backend: an open session holding none is listed with none', () => {
    const holds = holdsOf([
      { pid: 4242, classid: '4293558013', objid: '77', objsubid: 2 },
      { pid: 4242, classid: '1', objid: '2', objsubid: 2 },
      { pid: 4343, classid: null, objid: null, objsubid: null },
    ]);
    expect(holds).toEqual({ '4242': '-1409283,77 1,2', '4343': '' });
    expect(holdersOf(holds, '-1409283,77')).toEqual(['4242']);
    expect(holdersOf(holds, '1,2')).toEqual(['4242']);
    expect(holdersOf(holds, '9,9')).toEqual([]);
  });
});

describe('the locks the Postgres reply-loss faults aim at', () => {
  it('acts on advisory-lock; refuses --lock=postgres (it takes no lock, its row says), a lock outside Postgres, and the others', () => {
    const none = { redis: 0, etcd: 0, zk: 0 };
    expect(replyLossPgLock.refusal(none, 'advisory-lock')).toBeNull();
    expect(replyLossPgLock.refusal(none, 'postgres')).toBe(
      "reply-loss-pg-lock aims at an acquire by its statement (SELECT pg_advisory_lock(…), granted) on a Postgres session of the lock's own, known for --lock=advisory-lock only (its row: its lock is the row's version column, checked at the write: nothing expires)",
    );
    expect(replyLossPgLock.refusal({ ...none, redis: 1 }, 'redis')).toBe('--lock=redis keeps no lock in Postgres');
    expect(replyLossPgLock.refusal(none, 'sql-lease')).toMatch(/known for --lock=advisory-lock only$/);
    expect(pgAimRefusal('f', 'x')(none, 'a-plugin.ts')).toMatch(/known for --lock=advisory-lock only$/);
    expect(AIMABLE_LOCKS).toEqual(['advisory-lock']);
  });
});

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-pg-lock',
  value: { phase, targets: ['client p1 → pg (its lock sessions)'], params },
});

describe("reply-loss-pg-lock: the granted lock's reply dropped → Postgres held it for the client's session → the client never heard", () => {
  const start = nemesis('start', { slot: 1, process: 1, session: 'fencepost-lock-client-1', noLease: 'no lease' });
  // Line 1 is p1's acquire invoke (1 ms), line 2 its completion; the drop is seen at 1.5 ms, while it is in progress.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      droppedOn: ['pg'],
      statement: 'SELECT pg_advisory_lock(-1409283, 77)',
      key: '-1409283,77',
      after: { '4242': '-1409283,77' },
      droppedAt: 1_500_000,
      ...params,
    });
  const story = (e = end(), completion: Event = info(1, 'acquire', { account: 0 }, 'Connection terminated')) => [
    start,
    invoke(1, 'acquire', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-pg-lock'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the key granted to a backend of the client, the acquire never ok', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'unacknowledged:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the reply to p1's granted SELECT pg_advisory_lock(-1409283, 77) was dropped → right after the drop backend 4242 (fencepost-lock-client-1) held advisory key -1409283,77 → p1's acquire #1 ended info (Connection terminated)",
    );
  });

  it('no session of the client holding the key is a miss: nothing shows the grant took effect', () => {
    expect(gap(shotOf(story(end({ after: { '4242': '' } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ after: {} }))))).toBe('committed');
    expect(gap(shotOf(story(end({ after: { '4242': '1,2' } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ readError: 'Connection terminated unexpectedly' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ key: undefined }))))).toBe('committed');
    expect(shotOf(story(end({ after: {} }))).evidence).toMatch(
      /no session named fencepost-lock-client-1 held advisory key -1409283,77 right after the drop/,
    );
  });

  it('no drop, an acquire the client heard granted, or none in progress at the drop is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(1, 'acquire', { account: 0 }))))).toBe('unacknowledged');
    expect(gap(shotOf(story(end({ droppedAt: 500_000 }))))).toBe('unacknowledged');
  });
});
