import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import type { FaultShot } from '../judging/fault-shot.ts';
import { fail, history, invoke, ok, type Event } from '../../test/support/test-history.ts';
import { replyLossEtcdAcquire } from './inject.ts';

/** reply-loss-etcd-acquire's story on literal data, as the judge tells it from the records and the history (1 ms a line). */

const KEY = 'fencepost/lock/account-0';
const LEASE = '7587899396592203525';

const nemesis = (phase: 'start' | 'end', params: Record<string, unknown>): Event => ({
  process: 'nemesis',
  type: 'info',
  f: 'reply-loss-etcd-acquire',
  value: { phase, targets: ['client p1 → etcd[0], etcd[1], etcd[2]'], params },
});

describe("reply-loss-etcd-acquire: the granted Txn's answer dropped → etcd held the key on the client's lease → the acquire settled", () => {
  const start = nemesis('start', { slot: 1, process: 1, ttlMs: 2000 });
  // Line 1 is p1's acquire invoke (1 ms), line 2 its completion; the drop is at 1.5 ms, while it is in progress.
  const end = (params: Record<string, unknown> = {}) =>
    nemesis('end', {
      process: 1,
      droppedOn: ['etcd[2]'],
      key: KEY,
      sent: 'client-1-pid-42-ab12',
      lease: LEASE,
      committedAt: '77',
      valueAtCommit: 'client-1-pid-42-ab12',
      leaseAtCommit: LEASE,
      valueAfter: 'client-1-pid-42-ab12',
      leaseAfter: LEASE,
      revisionAfter: '77',
      droppedAt: 1_500_000,
      ...params,
    });
  const story = (e = end(), completion: Event = ok(1, 'acquire', { account: 0, token: '77' })) => [
    start,
    invoke(1, 'acquire', { account: 0 }),
    completion,
    e,
  ];
  const shotOf = (events: Event[]) => faultHits(history(...events))['reply-loss-etcd-acquire'].shots[0];
  const gap = (s: FaultShot) => s.story!.find((x) => x.status === 'missing')?.id;

  it("a completed story is a hit: the key the unanswered Txn put is the one the client's retry found", () => {
    const shot = shotOf(story());
    expect(shot.story!.map((s) => `${s.id}:${s.status}`)).toEqual([
      'reply-dropped:done',
      'committed:done',
      'settled:done',
    ]);
    expect(shot.hit).toBe(true);
    expect(shot.evidence).toBe(
      `the answer to p1's Txn putting ${KEY} was dropped on etcd[2] and the connection reset → at revision 77 ${KEY} held p1's value on its lease ${LEASE}, still there right after the drop (revision 77) → p1's acquire #2 ended ok holding that key (token 77): its retry found its own key`,
    );
  });

  it('an acquire that gave up is a whole story too: the key stays on its lease', () => {
    const shot = shotOf(story(end(), fail(1, 'acquire', { account: 0 }, 'deadline exceeded')));
    expect(shot.hit).toBe(true);
    expect(shot.story!.at(-1)!.evidence).toBe(
      `p1's acquire #1 ended fail (deadline exceeded), its key left on its lease ${LEASE}`,
    );
  });

  it("no key, or one on another lease, at the Txn's revision is a miss: nothing shows the Txn took effect", () => {
    expect(gap(shotOf(story(end({ valueAtCommit: undefined, leaseAtCommit: undefined }))))).toBe('committed');
    expect(gap(shotOf(story(end({ leaseAtCommit: '1' }))))).toBe('committed');
    expect(gap(shotOf(story(end({ committedAt: undefined }))))).toBe('committed');
    // Gone by the read right after (a client that gave up revoked its lease): committed all the same, and said so.
    const revoked = shotOf(story(end({ valueAfter: undefined, leaseAfter: undefined, revisionAfter: undefined })));
    expect(revoked.story![1].evidence).toMatch(/gone by the read right after the drop \(its lease revoked\)$/);
    expect(gap(shotOf(story(end({ readError: 'deadline exceeded' }))))).toBe('committed');
  });

  it("a grant whose token is not the key's create revision is told as such (Go's Mutex gives the grant's revision)", () => {
    const shot = shotOf(story(end(), ok(1, 'acquire', { account: 0, token: '80' })));
    expect(shot.hit).toBe(true);
    expect(shot.story!.at(-1)!.evidence).toBe(
      "p1's acquire #2 ended ok (token 80; the dropped Txn's key has create revision 77)",
    );
  });

  it('no drop, or no acquire at the drop, is a miss naming its step', () => {
    expect(gap(shotOf(story(end({ droppedOn: [] }))))).toBe('reply-dropped');
    expect(gap(shotOf(story(end({ droppedAt: 500_000 }))))).toBe('settled');
  });

  it('acts on etcd and etcd-go only', () => {
    const servers = (etcd: number) => ({ redis: etcd ? 0 : 1, etcd, zk: 0 });
    expect(replyLossEtcdAcquire.refusal(servers(3), 'etcd')).toBeNull();
    expect(replyLossEtcdAcquire.refusal(servers(3), 'etcd-go')).toBeNull();
    expect(replyLossEtcdAcquire.refusal(servers(0), 'redis')).toBe('--lock=redis uses no etcd member');
    expect(replyLossEtcdAcquire.refusal(servers(3), 'etcd3-lock')).toMatch(/known for --lock=etcd, etcd-go only/);
  });
});
