import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

describe('failover', () => {
  it('--lock=redis: the primary dies before the lock is replicated, the promoted replica grants it again → lost updates', async () => {
    const run = await runNemesis(['--lock=redis', '--nemesis=failover', '--time-limit=12', '--stop-on-lost-update']);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode).toBe(1);
    const all = starts(run, 'failover');
    expect(all[0].value.targets).toEqual(['redis-primary (primary, killed)', 'redis-replica (replica, promoted)']);
    expect(all[0].value.params).toMatchObject({ keyOnPromoted: false });
    // The old primary came back as a replica, so the next failover goes the other way.
    if (all.length > 1) expect(all[1].value.targets[0]).toBe('redis-replica (primary, killed)');
    expect(run.leftovers).toEqual([]);
  });

  it("--nemesis=replica-lag is this fault, and a hit's story names who then won the lock on the promoted replica", async () => {
    const run = await runNemesis(['--lock=redis', '--nemesis=replica-lag', '--time-limit=12']);
    expect(starts(run, 'failover').length, run.summary).toBeGreaterThan(0);
    const shots = run.outcome.results.faultHits.failover.shots.filter((s) => s.hit);
    expect(shots.length, run.summary).toBeGreaterThan(0);
    // The story: the failover, another client granted the lock on the promoted replica and reading before the
    // holder's write, then both writing.
    for (const s of shots) {
      expect(s.story?.map((x) => x.id)).toEqual(['struck', 'granted', 'holder-wrote', 'both-wrote']);
      expect(s.story![0].evidence).toMatch(/^failed over to redis-(replica|primary) \(no lock key there\)/);
      expect(s.story![1].evidence).toMatch(/^p\d+ was granted account \d+ \(#\d+\) at [\d.]+ s and read it \(#\d+\)$/);
    }
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });
});
