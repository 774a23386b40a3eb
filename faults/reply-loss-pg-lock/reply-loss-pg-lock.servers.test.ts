import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { checkLostReplies } from '../../checkers/lost-replies/check-lost-replies.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-pg-lock on a real Postgres, scripted: A's own lock-session proxy is armed, A's pg_advisory_lock is
 * granted and its reply dropped, pg_locks is read right after; A waits for that reply until the heal resets the
 * connection, its backend ends with it, and B is granted the lock. The lock has no lease, so the orphan is measured
 * against A's own wait alone. The 10-shot measurement of issue 46 is a command in docs/faults.md, not a suite test.
 */

type Params = { droppedOn: string[]; key?: string; after: Record<string, string> };

describe('reply-loss-pg-lock', () => {
  it("--lock=advisory-lock, scripted: A's grant is committed (its session holds the key) but unacknowledged, an orphan no TTL bounds", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-pg-lock',
        steps: [
          'start reply-loss-pg-lock A',
          'start A acquire',
          'heal reply-loss-pg-lock A',
          'B acquire',
          'B read',
          'B write',
          'B release',
        ],
      },
      ['--lock=advisory-lock'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const end = run.faults.find((o) => o.f === 'reply-loss-pg-lock' && o.value.phase === 'end')!;
    const p = end.value.params as Params;
    expect(p.droppedOn, run.summary).toEqual(['pg']);
    // The server's evidence: right after the drop, a backend of A's lock session held the key the statement named.
    expect(
      Object.values(p.after).some((keys) => keys.split(' ').includes(p.key!)),
      JSON.stringify(p),
    ).toBe(true);
    const [shot] = faultHits(run.ops)['reply-loss-pg-lock'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    const lost = checkLostReplies(run.ops, { ttlMs: 2000 });
    expect(lost.orphans, JSON.stringify(lost)).toMatchObject([{ f: 'reply-loss-pg-lock', ttlMs: null, beyond: false }]);
    expect(lost.orphans[0].noLease).toMatch(/Postgres session/);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
