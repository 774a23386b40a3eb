import { describe, expect, it } from 'vitest';
import type { LivenessResult } from '../checkers/liveness.ts';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';

/**
 * kill-holder on real servers: the client inside its critical section is SIGKILLed, so its lock is freed by expiry
 * alone. A lock with a TTL lets the others in after it; a lock that never expires (a plugin without PX) leaves them all
 * waiting: a liveness finding, and with --max-stall a failed liveness checker — INVALID without a lost update.
 */
describe('kill-holder', () => {
  it('--lock=etcd: each killed holder dies inside its section, its slot restarts, its lease lets the others in', async () => {
    const run = await runNemesis(['--lock=etcd', '--nemesis=kill-holder', '--time-limit=12']);
    const r = run.outcome.results;
    const shots = starts(run, 'kill-holder');
    expect(shots.length, run.summary).toBeGreaterThan(0);
    expect(r.faultHits['kill-holder'].hit, run.summary).toBeGreaterThan(0);
    expect(r.lostUpdates, run.summary).toBe(0);
    // A kill in the run's last seconds ends it before the slot's restart (its backoff, then a client process's start-up:
    // over 5 s under a full CI run) can show: judged on the kills at least 8 s before the last op.
    const lastOpTime = Math.max(...run.ops.map((o) => Number(o.time)));
    for (const start of shots) {
      const aim = start.value.params!.aim as { process: number; atTime: number };
      // Its open op (or a bare note) ends as info: client-exited, and the slot goes on under a new process id.
      const exit = run.ops.find((o) => o.process === aim.process && o.type === 'info' && o.error === 'client-exited');
      expect(exit, JSON.stringify(start.value)).toBeDefined();
      if (Number(exit!.time) > lastOpTime - 8e9) continue;
      expect(run.ops.some((o) => typeof o.process === 'number' && o.process > aim.process && o.time > exit!.time)).toBe(
        true,
      );
    }
    const live = r.checkers.liveness as LivenessResult;
    expect(live.lockouts.length, run.summary).toBeGreaterThan(0);
    // Freed by expiry: someone else took every dead holder's lock before the run ended, and nobody deadlocked. A kill in
    // the last 5 s of the history may still hold its lease when the clients stop (kill → next acquire takes the TTL
    // and etcd's expiry, 2.0–2.5 s here): its lockout has no next holder and, once longer than the TTL, its gap is a
    // stall to the history's end. Both are judged on the kills before that (times from the history's origin).
    const judgedBeforeMs = lastOpTime / 1e6 - 5000;
    const evidence = JSON.stringify({ judgedBeforeMs, lockouts: live.lockouts, stalls: live.stalls });
    for (const l of live.lockouts.filter((l) => l.fromMs < judgedBeforeMs))
      expect(l.nextHolder, evidence).not.toBeNull();
    expect(
      live.stalls.filter((s) => s.endedBy === 'history-end' && s.fromMs < judgedBeforeMs),
      evidence,
    ).toEqual([]);
    expect(run.leftovers).toEqual([]);
  });

  it('a lock that outlives the run deadlocks everyone: a stall to the end, and past --max-stall INVALID with 0 lost', async () => {
    const run = await runNemesis([
      '--lock=./test/fixtures/plugins/never-expires.ts',
      '--nemesis=kill-holder',
      '--max-stall=3000',
      '--time-limit=10',
    ]);
    const r = run.outcome.results;
    // Killed inside its section and dead there, but nobody ever took its lock: the story's last step is missing (the
    // catalogue's storyLimits says so), and the stall below is the finding.
    const shot = r.faultHits['kill-holder'].shots[0];
    expect(
      shot?.story?.map((s) => `${s.id}:${s.status}`),
      run.summary,
    ).toEqual(['killed:done', 'died:done', 'freed:missing']);
    const live = r.checkers.liveness as LivenessResult;
    expect(live.stalls.at(-1)?.endedBy, run.summary).toBe('history-end');
    expect(live.lockouts[0]?.nextHolder, run.summary).toBeNull();
    expect(r.lostUpdates).toBe(0);
    expect(r.checkers.liveness.valid).toBe(false);
    expect(r.valid).toBe(false);
    expect(run.outcome.exitCode).toBe(1);
    expect(run.log.join('\n')).toMatch(/liveness: .*--max-stall=3000: EXCEEDED/);
    expect(run.leftovers).toEqual([]);
  });
});
