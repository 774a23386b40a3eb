import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

/**
 * Every fault of a run must show it acted, by its own evidence (its judge, faults/<name>/judge.ts), recorded by the
 * executors in the history: the bytes a partition held, the processes a pause-node stopped, the member a kill
 * restarted and heard from again.
 */
describe('fault evidence', () => {
  // With --fencing: unfenced, these faults can cost etcd's lock an update (a holder cut from the leader by the
  // partition or the paused leader outlives its 2 s lease and still writes) — CI's clean clone found one on
  // 2026-12-02, seed 366461208: INVALID, write #5 by p0 erased by write #6 by p1. VALID is earned only by the fence.
  it('--lock=etcd --fencing: partition, pause-node and kill each record what they did, and the run is VALID on it', async () => {
    // One shot of each, in an order the seed fixes: --seed=45 schedules partition, pause-node, then kill (the schedule
    // gives every fault its turn once per round, and --shots=3 ends it after that round), and its partition cuts the
    // clients from all three members, so every client's lease keep-alive (each TTL/3) is held. The kill, whose
    // restart is the slow part, starts last, ~2.6 s in (0.2 s + 1 s + 0.2 s + 1 s + 0.2 s); its restart runs past the
    // clients' stop if it must. 8 s leaves room for --min-writes (36 writes by 4 clients in one run on a loaded
    // machine). Was 25 s of the three at random, each landing by chance (15 s once left one without a shot).
    const run = await runNemesis([
      '--lock=etcd',
      '--fencing',
      '--nemesis=partition,pause-node,kill',
      '--seed=45',
      '--shots=3',
      '--pause=1000',
      '--nemesis-interval=200',
      '--time-limit=8',
    ]);
    expect(
      starts(run).map((s) => s.f),
      run.summary,
    ).toEqual(['partition', 'pause-node', 'kill']);
    expect(starts(run, 'partition')[0].value.targets, run.summary).toHaveLength(3);
    const hits = run.outcome.results.faultHits;
    for (const f of ['partition', 'pause-node', 'kill'])
      expect(hits[f]?.hit, `${f}: ${run.summary}`).toBeGreaterThan(0);
    expect(hits.partition.shots.find((s) => s.hit)!.evidence).toMatch(/^held \d+ bytes \(etcd\[\d\]: \d+/);
    expect(hits['pause-node'].shots.find((s) => s.hit)!.evidence).toMatch(
      /^stopped (etcd leader )?etcd\[\d\] \(pid \d+.*, (the|not the) leader\)$/,
    );
    expect(hits.kill.shots.find((s) => s.hit)!.evidence).toMatch(/restarted with its data and answered a probe/);
    // The end record carries the proxies' own count.
    const partitionEnd = run.faults.find((o) => o.f === 'partition' && o.value.phase === 'end');
    const held = partitionEnd!.value.params!.heldBytes as Record<string, number>;
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(starts(run, 'pause-node')[0].value.params).toMatchObject({ stopped: true });
    expect(run.outcome.results.valid, run.summary).toBe(true);
    expect(run.outcome.exitCode).toBe(0);
    expect(run.leftovers).toEqual([]);
  });

  it('a fault of the run that never fired makes the verdict unknown, with that reason', async () => {
    // Seed 2 schedules pause-client first (at 1 s, held 1 s); partition's turn would come 5 s later, after the end.
    // --fencing: a client paused past its 2 s lease may write late, and unfenced that is a lost update — INVALID, a
    // counterexample that outranks any unknown (CI saw one); fenced, its stale write is refused.
    const run = await runNemesis([
      '--lock=etcd',
      '--fencing',
      '--nemesis=pause-client,partition',
      '--nemesis-interval=5000',
      '--pause=1000',
      '--time-limit=3',
      '--concurrency=2',
      '--seed=2',
    ]);
    expect(starts(run, 'partition')).toEqual([]);
    expect(run.outcome.results.valid, run.summary).toBe('unknown');
    expect(run.outcome.exitCode).toBe(2);
    expect(run.outcome.results.unknownReasons).toContainEqual(expect.stringMatching(/^partition never fired: /));
    expect(run.outcome.results.faultHits['pause-client']?.hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });
});
