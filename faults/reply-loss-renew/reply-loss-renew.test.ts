import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { history, info, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { replyLossRenew } from './inject.ts';

/** reply-loss-renew's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-renew',
  value: { phase, targets: ['client p0 → redis[0]'], params },
});
const wd = watchdogProcess(0);

describe("reply-loss-renew: the renewal's reply dropped → Redis extended the key → the watchdog never heard", () => {
  const start = nemesis('start', {
    slot: 0,
    process: 0,
    account: 0,
    readIndex: 0,
    ttlMs: 2000,
    ownerValues: { 'redis[0]': 'owner-a' },
    pttlMs: { 'redis[0]': 1900 },
  });
  // Line 2 is the watchdog's renew invoke (2 ms); the drop is seen at 2.5 ms; line 3 completes it.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 0,
      account: 0,
      droppedOn: ['redis[0]'],
      readsApartMs: 700,
      valuesAfter: { 'redis[0]': 'owner-a' },
      pttlAfterMs: { 'redis[0]': 1995 },
      unanswered: [],
      droppedAt: 2_500_000,
      ...params,
    });
  const story = (e = end(), completion: Event = info(wd, 'renew', { account: 0 }, 'Command timed out')) => [
    start,
    invoke(1, 'acquire', { account: 0 }),
    invoke(wd, 'renew', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-renew'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the key outlived what the time between the reads left of it', () => {
    const shot = shotOf(story());
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the reply to p0's renewal was dropped on redis[0] → the owner's key was extended on redis[0] (PTTL 1900 → 1995 ms over 700 ms) → p0's renewal #2 ended info (Command timed out)",
    );
  });

  it('a key not extended, or no longer the owner’s, is a miss at committed', () => {
    // Without the renewal 1900 − 700 = 1200 ms would be left; 1230 is within the 50 ms margin.
    expect(gap(shotOf(story(end({ pttlAfterMs: { 'redis[0]': 1230 } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: { 'redis[0]': 'owner-b' } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: {} }))))).toBe('committed');
  });

  it('no drop, a renewal the watchdog heard, or none in progress at the drop is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(wd, 'renew', { account: 0 }))))).toBe('unacknowledged');
    expect(gap(shotOf(story(end({ droppedAt: 1_000_000 }))))).toBe('unacknowledged');
  });
});

describe('reply-loss-renew: when it can act', () => {
  const env = (argv: string[]) => ({
    servers: { redis: 1, etcd: 0, zk: 0 },
    config: resolveConfig(['--lock=redis', ...argv]),
    proxies: new Map(),
    cluster: { redis: [] },
    pair: null,
  });
  it('needs --watchdog, and a section long enough for a renewal; says what to give', () => {
    const unavailable = (argv: string[]) => replyLossRenew.unavailable(env(argv) as never);
    expect(unavailable([])).toBe(
      'it aims at a renewal, and without --watchdog the clients never renew: give --watchdog',
    );
    expect(unavailable(['--watchdog'])).toBe(
      "a section of --think=100 ms ends before the watchdog's first renewal (every 666 ms): give --think=866 or more",
    );
    expect(replyLossRenew.refusal({ redis: 0, etcd: 3, zk: 0 }, 'etcd')).toBe('--lock=etcd uses no Redis node');
  });
});

describe('reply-loss-renew on ZooKeeper and Postgres: no renew request to aim at, refused with the reason', () => {
  const none = { redis: 0, etcd: 0, zk: 0 };
  it('ZooKeeper: the lock node lives with the session, which pings keep; no server evidence could prove a dropped ping', () => {
    for (const lock of ['zookeeper', 'curator', 'kazoo'])
      expect(replyLossRenew.refusal({ ...none, zk: 3 }, lock)).toBe(
        `--lock=${lock} renews nothing by a request of its own: its lock node lives as long as its ZooKeeper session, which the client's pings keep, and the server shows no session's expiry a dropped ping's reply could be proven by`,
      );
  });

  it('Postgres: no lock there renews (the lease rows are taken for one TTL, the advisory locks have no lease)', () => {
    for (const lock of ['sql-lease', 'sql-lease-dbtime', 'advisory-lock', 'postgres'])
      expect(replyLossRenew.refusal(none, lock)).toMatch(
        new RegExp(
          `^--lock=${lock} keeps its lock in Postgres, where no lock renews: sql-lease and sql-lease-dbtime take their lease row for one TTL and never extend it`,
        ),
      );
  });
});
