import { describe, expect, it } from 'vitest';
import { faultHits } from '../../checkers/fault-hits.ts';
import { starts } from '../../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../../test/support/scripted-run.ts';
import { EXTENDED_MARGIN_MS } from '../reply-loss-renew/judge.ts';

/**
 * one-way on a real Redis, scripted: A holds the lock and has read when its own proxy starts holding the replies to
 * it; its watchdog (--watchdog, every TTL/3) renews, the renewal reaches Redis and extends the key, its reply waits
 * in the proxy, and the key is read on Redis's own port as soon as that reply is held. Every wait is a step of the
 * script (`wait A renew`: the renewal timed out), never a sleep.
 */

type End = {
  heldOn: string[];
  heldReplyBytes: Record<string, number>;
  valuesAfter: Record<string, string>;
  pttlAfterMs: Record<string, number>;
  readsApartMs?: number;
};

describe('one-way', () => {
  it("--lock=redis --watchdog, scripted: A's renewal extends its key at the server while A hears nothing: its watchdog counts the lease lost", async () => {
    const run = await scriptedRun(
      {
        name: 'one-way',
        steps: ['A acquire', 'A read', 'one-way A', 'wait A renew', 'heal one-way A', 'A write', 'A release'],
        options: { watchdog: true, think: 1000 },
      },
      ['--lock=redis'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const [start] = starts(run, 'one-way');
    const before = start.value.params as { ownerValues: Record<string, string>; pttlMs: Record<string, number> };
    const end = run.faults.find((o) => o.f === 'one-way' && o.value.phase === 'end')!;
    const p = end.value.params as End;
    // The proxy's word: reply bytes held on A's route. The server's: A's value still under the key, its PTTL renewed
    // after the fault began (more than the first read's less the time between the reads).
    expect(p.heldOn, run.summary).toEqual(['redis[0]']);
    expect(p.heldReplyBytes['redis[0]']).toBeGreaterThan(0);
    expect(p.valuesAfter['redis[0]']).toBe(before.ownerValues['redis[0]']);
    expect(p.pttlAfterMs['redis[0]']).toBeGreaterThan(before.pttlMs['redis[0]'] - p.readsApartMs! + EXTENDED_MARGIN_MS);
    const [shot] = faultHits(run.ops)['one-way'].shots;
    expect(
      shot.story?.map((s) => `${s.id}:${s.status}`),
      shot.evidence,
    ).toEqual(['replies-held:done', 'committed:done', 'unacknowledged:done']);
    expect(shot.hit).toBe(true);
    // The client's side: its watchdog's renewal went unanswered, so it counts the lease lost and skips its write.
    expect(run.record.steps[3].evidence, run.summary).toMatch(/failed to renew/);
    expect(run.record.steps[5].status, run.summary).toBe('held');
    expect(run.leftovers).toEqual([]);
  }, 20_000);
});
