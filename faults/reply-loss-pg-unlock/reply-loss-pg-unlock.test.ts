import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { history, info, invoke, ok, read, writeValue, type Event } from '../../test/support/test-history.ts';
import { replyLossPgUnlock } from './inject.ts';

/** reply-loss-pg-unlock's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-pg-unlock',
  value: { phase, targets: ['client p0 → pg (its lock sessions)'], params },
});

describe("reply-loss-pg-unlock: the unlock's reply dropped → Postgres had freed the key on a live backend → the holder never heard", () => {
  const start = (before: Record<string, string> = { '4242': '-1409283,77' }) =>
    nemesis('start', {
      slot: 0,
      account: 0,
      readIndex: 3,
      process: 0,
      session: 'fencepost-lock-client-0',
      before,
    });
  // The release's invoke is line 7: its time is 7 ms.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 0,
      account: 0,
      droppedOn: ['pg'],
      statement: 'SELECT pg_advisory_unlock(-1409283, 77)',
      key: '-1409283,77',
      after: { '4242': '' },
      releaseTime: 7_000_000,
      ...params,
    });
  const w = writeValue(100, 110, 0);
  const story = (
    e = end(),
    completion: Event = info(0, 'release', { account: 0 }, 'Connection terminated'),
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
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-pg-unlock'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it('a completed story is a hit: the backend still open, the key no longer its, the release unanswered', () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'unacknowledged:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      "the reply to p0's SELECT pg_advisory_unlock(-1409283, 77) was dropped → right after the drop backend 4242 was still open and no longer held -1409283,77 → p0's release #7 ended info (Connection terminated)",
    );
  });

  it('the key still held is a miss; a backend gone, or none holding the key at the start, tells nothing', () => {
    const still = shotOf(story(end({ after: { '4242': '-1409283,77' } })));
    expect(gap(still)).toBe('committed');
    expect(still.evidence).toContain('backend 4242 still held -1409283,77: the unlock never took effect');
    const gone = shotOf(story(end({ after: {} })));
    expect(gap(gone)).toBe('committed');
    expect(gone.evidence).toContain('its session took the lock with it, nothing shows the unlock did');
    expect(gap(shotOf(story(end(), undefined, start({ '4242': '' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ readError: 'timeout' }))))).toBe('committed');
  });

  it('no drop, or a release the client heard answered, is a miss that names its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end(), ok(0, 'release', { account: 0, released: true }))))).toBe('unacknowledged');
  });

  it('acts on advisory-lock only', () => {
    const none = { redis: 0, etcd: 0, zk: 0 };
    expect(replyLossPgUnlock.refusal(none, 'advisory-lock')).toBeNull();
    expect(replyLossPgUnlock.refusal(none, 'postgres')).toMatch(/only \(its row: its lock is the row's version column/);
    expect(replyLossPgUnlock.refusal(none, 'advisory-lock-pgbouncer')).toMatch(/known for --lock=advisory-lock only /);
  });
});
