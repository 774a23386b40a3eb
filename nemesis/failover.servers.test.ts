import { describe, expect, it } from 'vitest';
import { starts } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

/**
 * Failover before replication on a Redis primary with one replica, by script: the interleaving a free run needed
 * luck for (the promoted replica serving the clients inside the holder's section) is the script's, so it holds every
 * time. `--nemesis=replica-lag` names this same fault (its alias: harness/options.test.ts).
 */
describe('failover', () => {
  // Scripted (scenarios/failover.json: replication cut, A acquires and reads, the primary dies and the replica is
  // promoted without A's key, B is granted on it and reads, both write). As a free run each shot's story was a race
  // (CI once saw neither of two complete in 12 s); scripted, the interleaving is fixed.
  it('--lock=redis, scripted: the primary dies before the lock is replicated, the promoted replica grants it again → lost updates, the story naming who won it there', async () => {
    const run = await scriptedRun({ shipped: 'failover' }, ['--lock=redis']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [start] = starts(run, 'failover');
    expect(start.value.targets).toEqual(['redis-primary (primary, killed)', 'redis-replica (replica, promoted)']);
    expect(start.value.params).toMatchObject({ keyOnPromoted: false });
    // The story: the failover, another client granted the lock on the promoted replica and reading before the
    // holder's write, then both writing.
    const [shot] = run.outcome.results.faultHits.failover.shots;
    expect(shot.hit, shot.evidence).toBe(true);
    expect(shot.story?.map((x) => x.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(shot.story![0].evidence).toMatch(/^failed over to redis-replica \(no lock key there\)/);
    expect(shot.story![1].evidence).toMatch(/^p1 was granted account 0 \(#\d+\) at [\d.]+ s and read it \(#\d+\)$/);
    expect(run.leftovers).toEqual([]);
  });
});
