import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { runNemesis, starts } from '../../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';

/**
 * reply-loss-acquire on a real Redis: a client's granted SET NX reaches the server, its reply is dropped by the
 * client's own proxy, and the key is read right after the drop. Scripted, the drop is armed on A before A's acquire
 * (`start reply-loss-acquire A`), so it strikes every time; the free run keeps what only the schedule shows — its
 * random client and the `+OK` filter — and asserts only what each hit must carry. The 10-shot measurement of issue 46
 * is a command in docs/faults.md, not a suite test.
 */

type Params = {
  droppedOn: string[];
  valuesAfter: Record<string, string>;
  pttlAfterMs?: Record<string, number>;
  sent?: string;
  key?: string;
  droppedAt?: number;
};

describe('reply-loss-acquire', () => {
  it("--lock=redis, scripted: A's granted acquire is committed (its value under the key) but unacknowledged, and the orphaned key keeps B out for its TTL", async () => {
    const run = await scriptedRun(
      {
        name: 'reply-loss-acquire',
        steps: [
          'start reply-loss-acquire A',
          'A acquire',
          'wait reply-loss-acquire A',
          'heal reply-loss-acquire A',
          'B acquire',
          'B read',
          'B write',
          'B release',
        ],
      },
      ['--lock=redis'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.record.steps[1].evidence, run.summary).toMatch(/its reply was dropped by reply-loss-acquire$/);
    const end = run.faults.find((o) => o.f === 'reply-loss-acquire' && o.value.phase === 'end')!;
    const p = end.value.params as Params;
    // The evidence read from the server: the value the SET wrote, under the key it named.
    expect(p, run.summary).toMatchObject({ droppedOn: ['redis[0]'], key: 'lock:account-0' });
    expect(p.sent).toMatch(/./);
    expect(p.valuesAfter).toEqual({ 'redis[0]': p.sent });
    const [shot] = faultHits(run.ops)['reply-loss-acquire'].shots;
    expect(
      shot.story?.map((s) => s.status),
      shot.evidence,
    ).toEqual(['done', 'done', 'done']);
    // The self-blocking this fault exposes in fencepost's own recipe: nobody holds the orphaned key, yet B is granted
    // only once the TTL since A's SET (sent after A's invoke) has run out.
    const acquires = run.ops.filter((o) => o.f === 'acquire');
    const aInvoke = acquires.find((o) => o.process === 0 && o.type === 'invoke')!;
    expect(acquires.find((o) => o.process === 0 && o.type !== 'invoke')?.type).not.toBe('ok');
    const bGrant = acquires.find((o) => o.process === 1 && o.type === 'ok')!;
    expect((bGrant.time - aInvoke.time) / 1e6, JSON.stringify(acquires)).toBeGreaterThanOrEqual(1_900);
    // The lost-replies checker names it: an orphan of about one TTL from the drop, ended by the key's PTTL or B's
    // grant — a lease's expected cost (within the TTL plus A's retry budget), said on the summary's liveness lines.
    const results = run.outcome.results;
    const [orphan] = results.checkers['lost-replies'].orphans ?? [];
    expect(orphan, run.summary).toMatchObject({ process: 0, account: 0, beyond: false });
    expect(['grant', 'ttl']).toContain(orphan.endedBy);
    expect(p.pttlAfterMs?.['redis[0]']).toBeGreaterThan(1_500);
    expect(orphan.durationMs).toBeGreaterThan(1_500);
    expect(orphan.durationMs).toBeLessThanOrEqual(2_000 + orphan.budgetMs + 100);
    expect(results.liveness?.lostReplies?.[0]).toMatch(
      /^orphaned lock on account 0 for [12]\.\d s, TTL 2\.0 s: p0's acquire #\d+ was granted .*: a lease's expected cost$/,
    );
    expect(results.checkers['lost-replies'].valid).toBe(true);
    expect(run.leftovers).toEqual([]);
  });

  // The schedule's aim (a random live client, only a SET answered +OK) is the subject: each judged hit carries the
  // server's read, however many shots the run fits in.
  it('--lock=redis free: every shot aims at a client proxy, and every judged hit read back the value its SET wrote', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=reply-loss-acquire',
      '--nemesis-interval=500',
      '--time-limit=5',
    ]);
    const shotStarts = starts(run, 'reply-loss-acquire');
    expect(shotStarts.length, run.summary).toBeGreaterThan(0);
    for (const s of shotStarts) expect(s.value.targets[0]).toMatch(/^client p\d+ → redis\[0\]$/);
    const ends = run.faults.filter((o) => o.f === 'reply-loss-acquire' && o.value.phase === 'end');
    expect(ends.length, run.summary).toBe(shotStarts.length);
    // A shot's end record is the first after its start (one shot at a time).
    for (const s of faultHits(run.ops)['reply-loss-acquire'].shots.filter((x) => x.hit)) {
      const p = ends.find((e) => e.index > s.index)!.value.params as Params;
      expect(p.sent, JSON.stringify(p)).toMatch(/./);
      for (const n of p.droppedOn) expect(p.valuesAfter[n], JSON.stringify(p)).toBe(p.sent);
    }
    expect(run.leftovers).toEqual([]);
  });
});
