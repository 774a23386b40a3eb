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
    // 15 s once left one of the three faults without a shot (CI); 25 s gives each its turn.
    const run = await runNemesis([
      '--lock=etcd',
      '--fencing',
      '--nemesis=partition,pause-node,kill',
      '--nemesis-interval=1000',
      '--time-limit=25',
    ]);
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
    // Seed 2 schedules pause-client first (at 1 s, held 3 s); partition's turn would come 5 s later, after the end.
    // --fencing: a client paused past its 2 s lease may write late, and unfenced that is a lost update — INVALID, a
    // counterexample that outranks any unknown (CI saw one); fenced, its stale write is refused.
    const run = await runNemesis([
      '--lock=etcd',
      '--fencing',
      '--nemesis=pause-client,partition',
      '--nemesis-interval=5000',
      '--time-limit=4',
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
