import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { watchdogProcess } from '../../history/process-role.ts';
import { fail, history, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { reset } from './inject.ts';

/** reset's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reset',
  value: { phase, targets: ['client p0 → redis[0]'], params },
});
const wd = watchdogProcess(0);

describe("reset: the holder's connections reset inside its section → the holder noticed", () => {
  // Lines 0–3: p0 acquires and reads (its read is #2); the reset is at 3.5 ms, the heal's record on line 4.
  const start = (params: Record<string, unknown> = {}) =>
    nemesis('start', {
      slot: 0,
      process: 0,
      account: 0,
      readIndex: 2,
      resetOn: ['redis[0]'],
      resets: { 'redis[0]': 1 },
      resetAt: 3_500_000,
      ...params,
    });
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', { process: 0, reconnectedOn: ['redis[0]'], waitedMs: 60, ...params });
  const section = [
    invoke(0, 'acquire', { account: 0 }),
    ok(0, 'acquire', { account: 0 }),
    invoke(0, 'read', { account: 0 }),
    ok(0, 'read', { account: 0 }),
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reset'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a reset inside the section that the client dialled back from is a hit', () => {
    const shot = shotOf([...section, start(), end()]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "p0's connections were reset on redis[0] (1) at 0.00 s, inside its section → p0 dialled redis[0] again within 60 ms",
    );
  });

  it('a client that never dialled back is seen by its next renewal or release failing', () => {
    const shot = shotOf([
      ...section,
      start(),
      end({ reconnectedOn: [] }),
      invoke(wd, 'renew', { account: 0 }),
      fail(wd, 'renew', { account: 0 }, 'read ECONNRESET'),
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.story![1].evidence).toBe("p0's renew #6 after the reset ended fail (read ECONNRESET)");
  });

  it('a client that neither dialled back nor failed did not visibly notice: a miss', () => {
    const quiet = [...section, start(), end({ reconnectedOn: [] })];
    expect(gap(shotOf([...quiet, invoke(0, 'release', { account: 0 }), ok(0, 'release', { account: 0 })]))).toBe(
      'reset-seen',
    );
    expect(gap(shotOf(quiet))).toBe('reset-seen');
  });

  it('no connection reset, or one after the holder began to release, is a miss at the reset', () => {
    expect(gap(shotOf([...section, start({ resetOn: [] }), end()]))).toBe('connection-reset');
    const released = [...section, invoke(0, 'release', { account: 0 }), start({ resetAt: 4_500_000 }), end()];
    expect(gap(shotOf(released))).toBe('connection-reset');
  });

  it('refuses a lock without Redis, saying why', () => {
    expect(reset.refusal({ redis: 1, etcd: 0, zk: 0 }, 'redis')).toBeNull();
    expect(reset.refusal({ redis: 0, etcd: 0, zk: 0 }, 'postgres')).toBe(
      "--lock=postgres uses no Redis node: reset resets a holder's own Redis connections; etcd's, ZooKeeper's and Postgres's are not reset by it yet (a Postgres reset ends the session, and its lock with it: kill-session's story)",
    );
  });
});
