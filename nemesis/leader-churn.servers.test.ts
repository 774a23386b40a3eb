import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

describe('leader-churn', () => {
  // One shot (--shots=1), first after 1 s, held --pause=4000: each round waits for another member to lead (a state,
  // polled) and an election here takes ~0.5-2 s (etcd's timeout is 500 ms, ZooKeeper's sync limit 1 s), so the hold
  // has room for at least one whole round; the run ends soon after the shot instead of 14 s in.
  for (const lock of ['etcd', 'zookeeper'] as const) {
    it(`--lock=${lock}: stops the leader until another member leads, again and again; the hit is a leader change`, async () => {
      const run = await runNemesis([
        `--lock=${lock}`,
        '--nemesis=leader-churn',
        '--nemesis-interval=1000',
        '--shots=1',
        '--pause=4000',
        '--time-limit=6',
        '--concurrency=2',
      ]);
      const first = starts(run, 'leader-churn')[0];
      expect(first, run.summary).toBeDefined();
      expect(first.value.targets[0]).toMatch(lock === 'etcd' ? /^etcd leader etcd/ : /^zk leader zk/);
      const end = run.faults.find((o) => o.f === 'leader-churn' && o.value.phase === 'end');
      const rounds = (end?.value.params as { rounds: { stopped: string; next: string | null }[] }).rounds;
      // Each round stopped the member that led at its start; a change is another member leading meanwhile.
      expect(
        rounds.some((r) => r.next !== null && r.next !== r.stopped),
        JSON.stringify(rounds),
      ).toBe(true);
      const hits = run.outcome.results.faultHits['leader-churn'];
      expect(hits.hit, JSON.stringify(hits.shots)).toBeGreaterThan(0);
      expect(hits.shots[0].evidence).toMatch(/leader change/);
      expect(run.leftovers).toEqual([]);
    });
  }

  it('refuses a lock whose servers elect no leader, before anything starts', async () => {
    await expect(runNemesis(['--lock=redis', '--nemesis=leader-churn'])).rejects.toThrow(
      /--lock=redis has no leader to churn/,
    );
  });
});
