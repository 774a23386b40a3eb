import { describe, expect, it } from 'vitest';
import type { LivenessResult } from '../checkers/liveness.ts';
import { starts } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

/**
 * kill-holder on real servers: the client inside its critical section is SIGKILLed, so its lock is freed by expiry
 * alone. A lock with a TTL lets the others in after it; a lock that never expires (a plugin without PX) leaves them all
 * waiting: a liveness finding, and with --max-stall a failed liveness checker — INVALID without a lost update.
 *
 * Both scripted (`kill A` strikes A after its read): the kill lands inside the section every time, and the run ends
 * when the story does, not at a --time-limit that had to leave room for a kill, a restart and an expiry by chance.
 */
describe('kill-holder', () => {
  it('--lock=etcd: each killed holder dies inside its section, its slot restarts, its lease lets the others in', async () => {
    const run = await scriptedRun(
      {
        name: 'killed-holder',
        steps: ['A acquire', 'A read', 'kill A', 'B acquire', 'B read', 'B write', 'B release'],
      },
      ['--lock=etcd'],
    );
    expect(run.record.followed, run.summary).toBe(true);
    const r = run.outcome.results;
    const [start] = starts(run, 'kill-holder');
    const aim = start.value.params!.aim as { process: number; atTime: number };
    // Its open op ends as info: client-exited, and the harness restarts its slot as a new process (not given up). A
    // script cannot step the new process yet: the step-order check still counts a killed A as holding the lock.
    const exit = run.ops.find((o) => o.process === aim.process && o.type === 'info' && o.error === 'client-exited');
    expect(exit, JSON.stringify(start.value)).toBeDefined();
    expect(run.log.join('\n')).toMatch(/client 0 exited with signal SIGKILL mid-run; restarting it as a new process/);
    expect(r.progress).toMatchObject({ clientExits: 1, slotsGaveUp: 0 });
    const [shot] = r.faultHits['kill-holder'].shots;
    expect(
      shot.story?.map((s) => `${s.id}:${s.status}`),
      shot.evidence,
    ).toEqual(['killed:done', 'died:done', 'freed:done']);
    // Freed by expiry: B took the dead holder's lock, and nobody deadlocked.
    const live = r.checkers.liveness as LivenessResult;
    const evidence = JSON.stringify({ lockouts: live.lockouts, stalls: live.stalls });
    expect(live.lockouts, evidence).toMatchObject([{ process: aim.process, nextHolder: aim.process + 1 }]);
    expect(
      live.stalls.filter((s) => s.endedBy === 'history-end'),
      evidence,
    ).toEqual([]);
    expect(r.lostUpdates, run.summary).toBe(0);
    expect(r.valid, run.summary).toBe(true);
    expect(run.leftovers).toEqual([]);
  });

  it('a lock that outlives the run deadlocks everyone: a stall to the end, and past --max-stall INVALID with 0 lost', async () => {
    // B asks for the lock its dead holder never frees and gives up after its acquire timeout (3 × TTL + 1 s = 4 s):
    // the stall runs from A's death to the history's end, ~4 s, past --max-stall=1500.
    const run = await scriptedRun({ name: 'killed-forever', steps: ['A acquire', 'A read', 'kill A', 'B acquire'] }, [
      '--lock=./test/fixtures/plugins/never-expires.ts',
      '--ttl=1000',
      '--max-stall=1500',
    ]);
    const r = run.outcome.results;
    // The script cannot go on past B's acquire (never granted): off its script, which alone would be unknown.
    expect(run.record.diverged, run.summary).toMatchObject({ step: 4, text: 'B acquire' });
    // Killed inside its section and dead there, but nobody ever took its lock: the story's last step is missing (the
    // catalogue's storyLimits says so), and the stall below is the finding.
    const shot = r.faultHits['kill-holder'].shots[0];
    expect(
      shot?.story?.map((s) => `${s.id}:${s.status}`),
      run.summary,
    ).toEqual(['killed:done', 'died:done', 'freed:missing']);
    const live = r.checkers.liveness as LivenessResult;
    expect(live.stalls.at(-1)?.endedBy, JSON.stringify(live.stalls)).toBe('history-end');
    expect(live.lockouts[0]?.nextHolder, JSON.stringify(live.lockouts)).toBeNull();
    expect(r.lostUpdates).toBe(0);
    // A failed checker outranks the unknown of a script not followed: INVALID, exit 1.
    expect(r.checkers.liveness.valid).toBe(false);
    expect(r.valid, run.summary).toBe(false);
    expect(run.outcome.exitCode).toBe(1);
    expect(run.log.join('\n')).toMatch(/liveness: .*--max-stall=1500: EXCEEDED/);
    expect(run.leftovers).toEqual([]);
  });
});
