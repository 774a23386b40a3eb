import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import { resolveConfig } from '../../harness/run-argv.ts';
import { history, info, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { oneWay } from './inject.ts';

/** one-way's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'one-way',
  value: { phase, targets: ['client p0 ← redis[0]'], params },
});
const wd = watchdogProcess(0);

describe('one-way: replies to the holder held → Redis renewed its key meanwhile → the holder heard nothing', () => {
  const start = nemesis('start', {
    slot: 0,
    process: 0,
    account: 0,
    readIndex: 0,
    ttlMs: 2000,
    ownerValues: { 'redis[0]': 'owner-a' },
    pttlMs: { 'redis[0]': 1900 },
  });
  // Line 2 is the watchdog's renew invoke (2 ms); its reply is seen held at 2.5 ms; line 3 completes it; line 4 heals.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 0,
      account: 0,
      heldOn: ['redis[0]'],
      heldReplyBytes: { 'redis[0]': 4 },
      heldAt: 2_500_000,
      readsApartMs: 700,
      valuesAfter: { 'redis[0]': 'owner-a' },
      pttlAfterMs: { 'redis[0]': 1995 },
      unanswered: [],
      ...params,
    });
  const timedOut = info(wd, 'renew', { account: 0 }, 'Command timed out');
  const story = (e = end(), completion: Event = timedOut) => [
    start,
    invoke(1, 'acquire', { account: 0 }),
    invoke(wd, 'renew', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['one-way'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('held reply bytes and a renewal read on the server is a hit', () => {
    const shot = shotOf(story());
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the replies to p0 were held on redis[0] (4 bytes) while its requests flowed → a renewal of p0 extended its key on redis[0] (PTTL 1900 → 1995 ms over 700 ms) → p0's renewal #2 ended info (Command timed out)",
    );
  });

  it('held bytes with no server effect is a miss, never a hit: the key not renewed, or no longer the holder’s', () => {
    // Without a renewal 1900 − 700 = 1200 ms would be left; 1230 is within the 50 ms margin.
    expect(gap(shotOf(story(end({ pttlAfterMs: { 'redis[0]': 1230 } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: { 'redis[0]': 'owner-b' } }))))).toBe('committed');
    expect(gap(shotOf(story(end({ valuesAfter: {}, pttlAfterMs: {} }))))).toBe('committed');
    expect(gap(shotOf(story(end({ readsApartMs: undefined }))))).toBe('committed');
  });

  it('nothing held, or a renewal answered during the fault, is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ heldOn: [], heldAt: undefined }))))).toBe('replies-held');
    expect(gap(shotOf(story(end(), ok(wd, 'renew', { account: 0 }))))).toBe('unacknowledged');
    expect(gap(shotOf(story(end({ heldAt: 1_000_000 }))))).toBe('unacknowledged');
  });

  it('a renewal answered only after the heal was unheard during the fault', () => {
    const late = [start, invoke(1, 'acquire', { account: 0 }), invoke(wd, 'renew', { account: 0 }), end()];
    const shot = shotOf([...late, ok(wd, 'renew', { account: 0 })]);
    expect(shot.hit).toBe(true);
    expect(shot.story![2].evidence).toBe("p0's renewal #2 was answered only after the heal");
  });
});

describe('one-way: when it can act', () => {
  const env = (lock: string, argv: string[]) => ({
    servers: { redis: lock === 'redis' ? 1 : 0, etcd: lock === 'etcd' ? 3 : 0, zk: 0 },
    config: resolveConfig([`--lock=${lock}`, ...argv]),
    proxies: new Map(),
    cluster: { redis: [] },
    pair: null,
  });
  const unavailable = (lock: string, argv: string[]) => oneWay.unavailable(env(lock, argv) as never);
  it('needs Redis, --watchdog and a section long enough for a renewal; says what to give', () => {
    expect(oneWay.refusal({ redis: 0, etcd: 0, zk: 0 }, 'postgres')).toBe(
      "--lock=postgres uses no Redis node: one-way tells a hit by a renewal read on Redis (the holder's key, its PTTL); etcd's, ZooKeeper's and Postgres's server effect is not read yet",
    );
    expect(unavailable('redis', [])).toBe(
      'its story is a renewal the holder never hears of, and without --watchdog the clients never renew: give --watchdog',
    );
    expect(unavailable('redis', ['--watchdog'])).toBe(
      "a section of --think=100 ms ends before the watchdog's first renewal (every 666 ms): give --think=866 or more",
    );
    expect(unavailable('redis', ['--watchdog', '--think=1000'])).toBe(
      'the clients do not reach Redis through proxies of their own',
    );
  });
});
