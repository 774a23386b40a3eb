import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { starts } from '../../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-pg-unlock on a real Postgres, scripted: A's pg_advisory_unlock reaches the server through A's own
 * lock-session proxy, its reply is dropped, and pg_locks is read right after. advisory-lock's release waits for that
 * reply until the heal resets the connection (the library then crashes A's process: no 'error' listener), so the
 * script heals right after sending it, and B takes the lock after. The 10-shot measurement of issue 46 is a command
 * in docs/faults.md, not a suite test.
 */

type Params = { droppedOn: string[]; key?: string; after: Record<string, string> };

describe('reply-loss-pg-unlock', () => {
  it("--lock=advisory-lock, scripted: A's unlock is committed (its backend open, the key no longer its) but unacknowledged", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-pg-unlock',
        steps: [
          'A acquire',
          'A read',
          'reply-loss-pg-unlock A',
          'A write',
          'start A release',
          'heal reply-loss-pg-unlock A',
          'B acquire',
          'B read',
          'B write',
          'B release',
        ],
      },
      ['--lock=advisory-lock'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const [start] = starts(run, 'reply-loss-pg-unlock');
    const before = (start.value.params as { before: Record<string, string> }).before;
    const end = run.faults.find((o) => o.f === 'reply-loss-pg-unlock' && o.value.phase === 'end')!;
    const p = end.value.params as Params;
    expect(p.droppedOn, run.summary).toEqual(['pg']);
    // The server's evidence: the backend that held the key as the section began, still open, holding it no more.
    const [pid] = Object.entries(before).find(([, keys]) => keys.split(' ').includes(p.key!))!;
    expect(p.after[pid], JSON.stringify(p)).toBe('');
    const [shot] = faultHits(run.ops)['reply-loss-pg-unlock'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    const release = run.ops.find((o) => o.process === 0 && o.f === 'release' && o.type !== 'invoke');
    expect(release?.type, JSON.stringify(release)).not.toBe('ok');
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
