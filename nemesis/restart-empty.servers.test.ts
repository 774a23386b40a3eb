import { describe, expect, it } from 'vitest';
import { starts } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun, type ScriptedRun } from '../test/support/scripted-run.ts';

/**
 * "Redis restart empty" for Redlock and a one-node plugin, and the two remedies the spec gives, each by script
 * (scenarios/restart-empty.json and its remedy variants below): the kill lands inside A's critical section because
 * the script puts it there, so each verdict holds every time and takes seconds. As free runs they needed a wide
 * section (--think=800–1500) and 12–15 s of shots for a kill to land before the holder wrote.
 */

/** The second step of restart-empty's story in a run's one shot: the nodes came back empty, or a remedy held. */
const restarted = (run: ScriptedRun) =>
  run.outcome.results.faultHits['restart-empty'].shots[0].story!.find((s) => s.id === 'restarted')!;

/** The restart only started, B only trying: A writes while the struck masters are down. */
const DELAY_STEPS = [
  'A acquire',
  'A read',
  'start restart-empty A',
  'try B acquire',
  'B read',
  'A write',
  'B write',
  'A release',
  'B release',
];

describe('restart-empty', () => {
  // The verdict, scripted (scenarios/restart-empty.json: A holds the key on the masters and has read, as many of them
  // as break the majority restart empty, B is granted the lock and reads, both write): it holds every time.
  it('--lock=redlock, scripted: masters restarted without the key grant it again → lost updates', async () => {
    const run = await scriptedRun({ shipped: 'restart-empty' }, ['--lock=redlock']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [start] = starts(run, 'restart-empty');
    // The holder got all 5 masters; 3 of them must forget the key for another client to reach 3 of 5.
    expect(start.value.params).toMatchObject({ masters: 5, wiped: true, persistence: 'none' });
    expect((start.value.params!.killed as string[]).length).toBe((start.value.params!.holding as string[]).length - 2);
    expect(run.outcome.results.faultHits['restart-empty'].hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });

  // The same script with a plugin's lock: the fault finds the plugin's keys by asking every Redis node of the run.
  it('a plugin on one Redis node (examples/my-lock.ts), scripted: its one node is found, restarted empty → lost updates, the hit on record', async () => {
    const run = await scriptedRun({ shipped: 'restart-empty' }, ['--lock=./examples/my-lock.ts']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [start] = starts(run, 'restart-empty');
    // The plugin declares one Redis node (servers: { redis: 1 }): the key is on it, and it is the one killed.
    expect(start.value.params).toMatchObject({
      masters: 1,
      holding: ['redis[0]'],
      killed: ['redis[0]'],
      keys: ['my:account-0'],
    });
    expect(start.value.params!.aim).toMatchObject({
      struck: ['redis[0]'],
      keysOn: { 'redis[0]': ['my:account-0'] },
      needed: 1,
    });
    const hits = run.outcome.results.faultHits['restart-empty'];
    expect(hits).toMatchObject({ fired: 1, hit: 1 });
    expect(hits.shots[0].story!.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(hits.shots[0].story![0].evidence).toMatch(
      /^killed redis\[0\] while p\d+ was inside its critical section on account 0 .*; redis\[0\] held my:account-0$/,
    );
    expect(run.leftovers).toEqual([]);
  });

  // The remedies' script: B only *tries* the lock A holds (scenario-steps.ts: kept out within half A's lease reads as
  // held). The shipped script's `B acquire` waits as long as it takes, so under a remedy it waits out A's lease and is
  // granted then — A's write after that is a holder outliving its lease, which no remedy of the lock's can prevent.
  // --restart-delay: the restart is only started (`start …`), so A writes inside its lease while the masters are still
  // down, as a holder whose section is shorter than the TTL does (the free run's --think=800 under a 2 s TTL); they
  // answer again at the script's end, once the delay ran out.
  it('--restart-delay ≥ TTL, scripted: B is kept out while the masters stay down, no lost update (VALID)', async () => {
    const run = await scriptedRun({ name: 'restart-delay', steps: DELAY_STEPS }, [
      '--lock=redlock',
      '--restart-delay=2000',
    ]);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.record.steps.find((s) => s.text === 'try B acquire')?.status, run.summary).toBe('held');
    const [start] = starts(run, 'restart-empty');
    expect(start.value.params).toMatchObject({ restartDelayMs: 2000, ttlMs: 2000, wiped: true });
    // The heal waited out what was left of the delay before the masters answered again.
    const end = run.faults.find((o) => o.f === 'restart-empty' && o.value.phase === 'end')!;
    expect(end.value.params!.downtimeWaitedOutMs, run.summary).toEqual(expect.any(Number));
    expect(restarted(run), run.summary).toMatchObject({ status: 'held', evidence: expect.stringMatching(/≥ the TTL/) });
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.results.valid, run.summary).toBe(true);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });

  // What earns that VALID is the delay, not the script: without it B is kept out just the same (the masters are down),
  // but nothing says the hole was closed — they answered again, empty, after A's write — so the story is incomplete
  // and the verdict unknown, never VALID.
  it('the same script without a remedy: the story is incomplete, unknown (exit 2), not VALID', async () => {
    const run = await scriptedRun({ name: 'restart-no-delay', steps: DELAY_STEPS }, ['--lock=redlock']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(restarted(run), run.summary).toMatchObject({
      status: 'missing',
      evidence: expect.stringMatching(/answered again only at .*after p0's write completed/),
    });
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.results.valid, run.summary).toBe('unknown');
    expect(run.outcome.exitCode, run.summary).toBe(2);
    expect(run.leftovers).toEqual([]);
  });

  // --redis-persistence=aof-always: the restart step ends once the masters answer again, with their AOF; B then tries
  // the lock with A's key back on all five. A TTL of 4 s leaves B 2 s of A's lease to try in after a restart.
  it('--redis-persistence=aof-always, scripted: the key comes back with the AOF, B is kept out, no lost update (VALID)', async () => {
    const steps = ['A acquire', 'A read', 'restart-empty A', 'try B acquire', 'B read', 'A write', 'B write'];
    const run = await scriptedRun(
      { name: 'restart-aof', steps: [...steps, 'A release', 'B release'], options: { ttl: 4000 } },
      ['--lock=redlock', '--redis-persistence=aof-always'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.record.steps.find((s) => s.text === 'try B acquire')?.status, run.summary).toBe('held');
    expect(starts(run, 'restart-empty')[0].value.params).toMatchObject({ wiped: false, persistence: 'aof-always' });
    expect(restarted(run), run.summary).toMatchObject({ status: 'held', evidence: expect.stringMatching(/AOF/) });
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.results.valid, run.summary).toBe(true);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
