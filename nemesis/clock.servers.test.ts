import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

describe('clock', () => {
  // Scripted (scenarios/clock-jump.json: the clock of A's key's node jumps 60 s while A is in its section, B is
  // granted and reads, both write): the verdict holds every time.
  it("--lock=redis, scripted: a forward jump on the lock's node expires the key at once → lost updates", async () => {
    const run = await scriptedRun({ shipped: 'clock-jump' }, ['--lock=redis']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [start] = starts(run, 'clock');
    expect(start.value.targets).toEqual(['redis[0]']);
    expect(start.value.params).toMatchObject({ offsetMs: 60_000, offsets: { 'redis[0]': 60_000 } });
    const end = run.faults.find((o) => o.index > start.index && o.f === 'clock' && o.value.phase === 'end');
    expect(end?.value.params).toMatchObject({ offsets: { 'redis[0]': 0 } });
    expect(run.outcome.results.faultHits.clock.hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });

  // Was "the skew cannot reach etcd, and the history says so" with `faultHits.clock.hit > 0` and exit 0: a jump that
  // cannot move a Go binary injected nothing, so it is now refused before anything boots.
  it('--lock=etcd: refused before anything starts, because the shim cannot move etcd', async () => {
    await expect(runNemesis(['--lock=etcd', '--nemesis=clock', '--time-limit=6'])).rejects.toThrow(
      /--nemesis=clock cannot act on --lock=etcd: .*shim cannot move it/,
    );
  });
});
