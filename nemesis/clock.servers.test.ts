import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

describe('clock', () => {
  it("--lock=redis: a forward jump on the lock's node expires the key at once → lost updates", async () => {
    const run = await runNemesis(['--lock=redis', '--nemesis=clock', '--time-limit=10']);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode).toBe(1);
    const [start] = starts(run, 'clock');
    expect(start.value.targets).toEqual(['redis[0]']);
    expect(start.value.params).toMatchObject({ offsetMs: 60_000, offsets: { 'redis[0]': 60_000 } });
    const end = run.faults.find((o) => o.index > start.index && o.f === 'clock' && o.value.phase === 'end');
    expect(end?.value.params).toMatchObject({ offsets: { 'redis[0]': 0 } });
    expect(run.outcome.results.faultHits.clock.hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });

  it('--lock=etcd: the skew cannot reach etcd, and the history says so instead of pretending', async () => {
    const run = await runNemesis(['--lock=etcd', '--nemesis=clock', '--time-limit=6']);
    const [start] = starts(run, 'clock');
    expect(start.value.targets[0]).toMatch(/^etcd\[\d\]$/);
    expect(start.value.note).toMatch(/etcd ignores the skew/);
    expect(run.log.some((l) => /etcd ignores the skew/.test(l))).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    // It still landed where it aimed (the leader, while a holder was inside its critical section): a clean
    // verdict here means etcd survived a jump, not that the jump missed.
    expect(start.value.params!.aim).toMatchObject({ struck: [start.value.targets[0].replace(/^etcd leader /, '')] });
    expect(run.outcome.results.faultHits.clock.hit, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
