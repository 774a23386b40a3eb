import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

/**
 * --think=800: the promoted replica serves the clients 150–250 ms after the primary's kill here (their proxies are
 * re-pointed, they reconnect), so a default 100 ms section has always written by then and the double grant reads the
 * holder's write: no story (checkers/fault-hits/server-story.ts). A section wider than the failover, as the matrix gives it.
 */
describe('failover', () => {
  it('--lock=redis: the primary dies before the lock is replicated, the promoted replica grants it again → lost updates', async () => {
    // Each shot cuts replication for a TTL before it aims, so 12 s gave two shots; a shot's story is a race (another
    // client granted on the promoted replica before the holder writes: CI once saw neither of two complete). Room for
    // more shots; the run ends at its first lost update.
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=failover',
      '--think=800',
      '--time-limit=24',
      '--stop-on-lost-update',
    ]);
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
    const run = await runNemesis(['--lock=redis', '--nemesis=replica-lag', '--think=800', '--time-limit=12']);
    expect(starts(run, 'failover').length, run.summary).toBeGreaterThan(0);
    const shots = run.outcome.results.faultHits.failover.shots.filter((s) => s.hit);
    expect(shots.length, run.summary).toBeGreaterThan(0);
    // The story: the failover, another client granted the lock on the promoted replica and reading before the
    // holder's write, then both writing.
    for (const s of shots) {
      expect(s.story?.map((x) => x.status)).toEqual(['done', 'done', 'done', 'done']);
      expect(s.story![0].evidence).toMatch(/^failed over to redis-(replica|primary) \(no lock key there\)/);
      expect(s.story![1].evidence).toMatch(/^p\d+ was granted account \d+ \(#\d+\) at [\d.]+ s and read it \(#\d+\)$/);
    }
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });
});
