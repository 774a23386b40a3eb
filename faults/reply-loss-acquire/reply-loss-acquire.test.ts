import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { replyLossAcquire } from './inject.ts';

/** reply-loss-acquire's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-acquire',
  value: { phase, targets: ['client p1 → redis[0]'], params },
});

describe("reply-loss-acquire: the granted acquire's reply dropped → Redis held the client's value → the client never heard", () => {
  const start = nemesis('start', { slot: 1, process: 1, ttlMs: 2000 });
  // Line 2 is p1's acquire invoke (2 ms), line 3 its completion; the drop is seen at 2.5 ms, while it is in progress.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      droppedOn: ['redis[0]'],
      key: 'lock:account-0',
      sent: 'token-1',
      valuesAfter: { 'redis[0]': 'token-1' },
      unanswered: [],
      droppedAt: 2_500_000,
      ...params,
    });
  const story = (e = end(), completion: Event = info(1, 'acquire', { account: 0 }, 'Command timed out')) => [
    start,
    invoke(2, 'acquire', { account: 0 }),
    invoke(1, 'acquire', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-acquire'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the key holds the value the unanswered SET wrote', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'unacknowledged:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the reply to p1's granted SET of lock:account-0 was dropped on redis[0] → right after the drop lock:account-0 held p1's value on redis[0] → p1's acquire #2 ended info (Command timed out)",
    );
  });

  it("a key without the client's value is a miss: nothing shows the SET took effect", () => {
    expect(gap(shotOf(story(end({ valuesAfter: {} }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: { 'redis[0]': 'token-9' } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: {}, unanswered: ['redis[0]'] }))))).toBe('committed');
  });

  it('no drop, an acquire the client heard granted, or none in progress at the drop is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(1, 'acquire', { account: 0 }))))).toBe('unacknowledged');
    expect(gap(shotOf(story(end({ droppedAt: 1_000_000 }))))).toBe('unacknowledged');
  });

  it('an acquire granted only on a request the client resent over a new connection never heard the dropped reply', () => {
    const resent = shotOf(
      story(end({ newConnectionsBeforeAnswer: 1, request: 'EVAL' }), ok(1, 'acquire', { account: 0 })),
    );
    expect(resent.hit).toBe(true);
    expect(resent.story![0].evidence).toBe("the reply to p1's granted EVAL of lock:account-0 was dropped on redis[0]");
    expect(resent.story!.at(-1)).toEqual({
      id: 'unacknowledged',
      status: 'done',
      evidence:
        "p1's acquire #2 ended ok only on a resend, over 1 new connection opened after the drop: the dropped reply itself was never heard",
    });
    // No new connection: the ok came over the connection whose reply was dropped — not the request aimed at.
    expect(gap(shotOf(story(end({ newConnectionsBeforeAnswer: 0 }), ok(1, 'acquire', { account: 0 }))))).toBe(
      'unacknowledged',
    );
  });

  it('acts on any lock with a Redis node: redis and redlock by their SET, a plugin by its next request', () => {
    const servers = (redis: number) => ({ redis, etcd: redis ? 0 : 3, zk: 0 });
    expect(replyLossAcquire.refusal(servers(1), 'redis')).toBeNull();
    expect(replyLossAcquire.refusal(servers(5), 'redlock')).toBeNull();
    expect(replyLossAcquire.refusal(servers(1), './examples/broken/reentrant-resend.ts')).toBeNull();
    expect(replyLossAcquire.refusal(servers(0), 'etcd')).toBe('--lock=etcd uses no Redis node');
  });
});
