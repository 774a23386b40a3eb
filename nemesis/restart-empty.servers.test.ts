import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

/**
 * "Redis restart empty" for Redlock, and the two remedies the spec gives. Restarts are aimed at a holder's
 * critical section and each lands in time about a third of the time (the window is --think = 100 ms), so the
 * tests space them 500 ms apart to get ~20 attempts in 15 s.
 */
describe('restart-empty', () => {
  it('--lock=redlock: masters restarted without the key grant it again → lost updates', async () => {
    const run = await runNemesis(['--lock=redlock', '--nemesis=restart-empty', '--nemesis-interval=500', '--time-limit=15']);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode).toBe(1);
    const [start] = starts(run, 'restart-empty');
    // The holder got all 5 masters; 3 of them must forget the key for another client to reach 3 of 5.
    expect(start.value.params).toMatchObject({ masters: 5, wiped: true, persistence: 'none' });
    expect((start.value.params!.killed as string[]).length).toBe((start.value.params!.holding as string[]).length - 2);
    expect(run.outcome.results.faultHits['restart-empty'].hit, run.summary).toBeGreaterThan(0);
    expect(run.leftovers).toEqual([]);
  });

  it('a plugin on one Redis node (examples/my-lock.ts): its one node is found, restarted empty → lost updates, each hit on record', async () => {
    const run = await runNemesis(['--lock=./examples/my-lock.ts', '--nemesis=restart-empty', '--nemesis-interval=500', '--time-limit=15']);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode, run.summary).toBe(1);
    const [start] = starts(run, 'restart-empty');
    // The plugin uses ctx.redis[0] only: the key is on that one node of five, and that node is the one killed.
    expect(start.value.params).toMatchObject({ masters: 5, holding: ['redis[0]'], killed: ['redis[0]'], keys: ['my:account-0'] });
    expect(start.value.params!.aim).toMatchObject({ struck: ['redis[0]'], keysOn: { 'redis[0]': ['my:account-0'] }, needed: 1 });
    const hits = run.outcome.results.faultHits['restart-empty'];
    expect(hits.fired).toBe(starts(run, 'restart-empty').length);
    expect(hits.hit, JSON.stringify(hits.shots.slice(0, 3))).toBeGreaterThan(0);
    expect(hits.shots.find((s) => s.hit)!.evidence).toMatch(/^killed redis\[0\] while p\d+ was inside its critical section on account 0 .*; redis\[0\] held my:account-0$/);
    expect(run.leftovers).toEqual([]);
  });

  it('--restart-delay ≥ TTL closes the hole: no lost update', async () => {
    const run = await runNemesis(['--lock=redlock', '--nemesis=restart-empty', '--restart-delay=2000', '--nemesis-interval=500', '--time-limit=12']);
    expect(starts(run, 'restart-empty').length, run.summary).toBeGreaterThanOrEqual(2);
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });

  it('--redis-persistence=aof-always closes the hole: the key comes back with the AOF', async () => {
    const run = await runNemesis(['--lock=redlock', '--nemesis=restart-empty', '--redis-persistence=aof-always', '--nemesis-interval=500', '--time-limit=12']);
    expect(starts(run, 'restart-empty').length, run.summary).toBeGreaterThanOrEqual(5);
    expect(starts(run, 'restart-empty')[0].value.params).toMatchObject({ wiped: false, persistence: 'aof-always' });
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
