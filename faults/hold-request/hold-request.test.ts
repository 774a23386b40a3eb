import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { holdRequest } from './inject.ts';

/** hold-request's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'hold-request',
  value: { phase, targets: ['client p1 → redis[0]'], params },
});

describe("hold-request: a client's request held in flight → delivered with the clients running", () => {
  // Line 0 is p1's acquire invoke; its SET is caught at 0.5 ms (the start record, line 1); p2 acquires meanwhile.
  const start = (params: Record<string, unknown> = {}) =>
    nemesis('start', {
      slot: 1,
      process: 1,
      command: 'SET',
      heldOn: ['redis[0]'],
      key: 'broken:account-0',
      heldAt: 500_000,
      ...params,
    });
  const end = (params: Record<string, unknown> = {}) => nemesis('end', { process: 1, heldMs: 3, ...params });
  const story = (s = start(), e: Event | null = end()) => [
    invoke(1, 'acquire', { account: 0 }),
    s,
    invoke(2, 'acquire', { account: 0 }),
    ok(2, 'acquire', { account: 0 }),
    ...(e ? [e] : []),
    ok(1, 'acquire', { account: 0 }),
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['hold-request'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a request held and then delivered is a hit, naming the client op that sent it', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual(['request-held:done', 'delivered:done']);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "p1's SET broken:account-0 was held on redis[0] at 0.00 s, sent by its acquire #0 → delivered at 0.00 s, held 3 ms",
    );
  });

  it("a hold the run's end cut short, or one never delivered, is a miss at its delivery", () => {
    expect(gap(shotOf(story(start(), end({ cutShort: true }))))).toBe('delivered');
    expect(gap(shotOf(story(start(), null)))).toBe('delivered');
  });

  it('a shot that held nothing is a miss at its first step', () => {
    expect(gap(shotOf(story(start({ heldOn: [] }))))).toBe('request-held');
  });

  it('acts where the requests are framed: Redis or ZooKeeper', () => {
    expect(holdRequest.refusal({ redis: 1, etcd: 0, zk: 0 }, './examples/broken/check-then-set.ts')).toBeNull();
    expect(holdRequest.refusal({ redis: 0, etcd: 0, zk: 3 }, 'zookeeper')).toBeNull();
    expect(holdRequest.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toMatch(/--lock=etcd uses no Redis or ZooKeeper/);
  });
});
