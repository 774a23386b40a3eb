import { describe, expect, it } from 'vitest';
import { runNemesis, starts } from '../test/support/nemesis-test-kit.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

/**
 * The oracle's "holder paused > TTL" column, measured on real servers: the client inside its critical section
 * is SIGSTOPped until its story took the step the pause waits for — a TTL went by and another client acquired the
 * account and committed a write — at most 4 × TTL. The first pause comes ~1 s after the clients start.
 */
describe('pause-holder', () => {
  // The verdicts, scripted (scenarios/paused-holder.json: A stopped after its read until its lease ran out, B
  // acquires, reads, writes and releases, A resumes and writes): the interleaving is the script's, so each holds every
  // time and takes seconds; the free runs below keep what only the free loop shows (the schedule's aim and hold).
  it.each([['redis'], ['redlock'], ['etcd']])(
    "--lock=%s without fencing, the paused holder scripted: its stale write erases B's (INVALID, exit 1)",
    async (lock) => {
      const run = await scriptedRun({ shipped: 'paused-holder' }, [`--lock=${lock}`]);
      expect(run.record.followed, run.summary).toBe(true);
      expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
      expect(run.outcome.exitCode, run.summary).toBe(1);
      const [shot] = run.outcome.results.faultHits['pause-holder'].shots;
      expect(
        shot.story?.map((s) => s.status),
        shot.evidence,
      ).toEqual(['done', 'done', 'done', 'done', 'done']);
      expect(run.leftovers).toEqual([]);
    },
  );

  it.each([['etcd'], ['zookeeper']])(
    '--lock=%s --fencing, the paused holder scripted: its stale write is refused — no lost update (VALID, exit 0)',
    async (lock) => {
      const run = await scriptedRun({ shipped: 'paused-holder' }, [`--lock=${lock}`, '--fencing']);
      expect(run.record.followed, run.summary).toBe(true);
      expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
      // Proof that the fault hit: the paused holder came back and was refused.
      expect(run.outcome.results.staleWritesRejected, run.summary).toBeGreaterThan(0);
      expect(run.outcome.exitCode, run.summary).toBe(0);
      expect(run.leftovers).toEqual([]);
    },
  );

  // The free loop's own pause (the subject here, with --stop-on-lost-update): the schedule aims at a holder, records
  // the pause, resumes it once its story moved on, and the run ends at the first lost update — the paused holder's
  // write — which the ledger and the checker both name. The time limit is only a bound: the run ends ~3 s in.
  it('--lock=redis free, --stop-on-lost-update: each pause recorded with its target and parameters, the holder resumed once another client wrote, the run ended at the lost update the checker names', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--nemesis=pause-holder',
      '--time-limit=30',
      '--stop-on-lost-update',
    ]);
    const [start] = starts(run, 'pause-holder');
    expect(start.value.targets[0]).toMatch(/^client p\d+ \(pid \d+\)$/);
    expect(start.value.params).toMatchObject({ maxMs: 8000, ttlMs: 2000 });
    const end = run.faults.find((o) => o.index > start.index && o.value.phase === 'end');
    expect(end?.value.targets).toEqual(start.value.targets);
    // Never before the lease ran out; ended by its story (another client's write), not by the 8 s bound.
    expect((end!.time - start.time) / 1e6, run.summary).toBeGreaterThanOrEqual(2000);
    expect(end!.value.params, run.summary).toMatchObject({ endedBy: 'story' });
    expect(end!.value.params!.heldMs as number, run.summary).toBeLessThan(8000);
    // The lost update the run stopped on is a paused holder's: a shot whose whole story is done.
    const { shots } = run.outcome.results.faultHits['pause-holder'];
    expect(
      shots.some((s) => s.story?.every((x) => x.status === 'done')),
      JSON.stringify(shots),
    ).toBe(true);
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode).toBe(1);
    expect(run.outcome.stoppedEarlyAtS, run.summary).toBeLessThan(30);
    const stopped = run.test.stoppedEarly!;
    expect(stopped).toMatchObject({ account: 0, atS: run.outcome.stoppedEarlyAtS });
    // The write it stopped on is one the lost-updates checker names, as the eraser or as the one erased.
    const named = run.outcome.results.lostUpdateDetails.flatMap((l) => [l.lost.writeId, l.overwrittenBy.writeId]);
    expect(named.some((id) => id === stopped.writeId || id === stopped.missed)).toBe(true);
    expect(run.leftovers).toEqual([]);
  });

  // The GC-pause story with a watchdog (the remedy table's "holder paused > TTL, --watchdog" cell, its flags): the
  // resumed holder's write is the next thing it does, before its overdue renewal can tell it the lease is gone. That
  // order is the free loop's (the schedule strikes only a section whose think timer falls due before the next renewal:
  // faults/pause-holder/inject.ts), so this stays a free run; a script cannot tell it: a scripted client writes when
  // the script says, after its overdue renewal (the next test). It ends at its first lost update; the time limit is
  // only a bound. Struck anywhere, some resumed writes were skipped as lock-lost and the cell came out safe by luck.
  it('--lock=redis --watchdog free: every paused holder writes when it resumes, and loses updates (exit 1)', async () => {
    const run = await runNemesis([
      '--lock=redis',
      '--watchdog',
      '--nemesis=pause-holder',
      '--nemesis-interval=1000',
      '--time-limit=30',
      '--stop-on-lost-update',
    ]);
    const shots = starts(run, 'pause-holder');
    expect(shots.length, run.summary).toBeGreaterThan(0);
    for (const start of shots) {
      // Struck only with the write due first (writeLeadMs: that many ms before the next renewal, at least 20).
      expect(start.value.params!.writeLeadMs, JSON.stringify(start.value.params)).toBeGreaterThanOrEqual(20);
      const aim = start.value.params!.aim as { process: number; readTime: number };
      const write = run.ops.find(
        (o) => o.process === aim.process && o.f === 'write' && o.type !== 'invoke' && o.time > aim.readTime,
      );
      if (write === undefined) continue; // the run ended during this pause
      expect(write.error, `${JSON.stringify(start.value.params)}\n${run.summary}`).not.toBe('lock-lost');
    }
    expect(run.test.stoppedEarly, run.summary).toBeDefined();
    expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
    expect(run.outcome.exitCode).toBe(1);
    expect(run.leftovers).toEqual([]);
  });

  // The other order, scripted (scenarios/watchdog-late-renewal.json with the built-in lock): A resumes and its overdue
  // renewal goes out before its write; the renewal checks that the key is still A's, answers no, and A skips its
  // write — the watchdog saves it. The same script catches examples/broken/renew-without-owner.ts (the gallery).
  it('--lock=redis --watchdog, the late renewal scripted: the renewal finds the lock lost, A skips its write (VALID, exit 0)', async () => {
    const run = await scriptedRun({ shipped: 'watchdog-late-renewal' }, ['--lock=redis']);
    expect(run.record.followed, run.summary).toBe(true);
    expect(run.record.steps.find((s) => s.text === 'wait A renew')?.evidence, run.summary).toMatch(
      /failed to renew .*lock-lost/,
    );
    expect(
      run.record.steps.find((s) => s.text === 'A write'),
      run.summary,
    ).toMatchObject({ status: 'held' });
    expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
    expect(run.outcome.results.valid, run.summary).toBe(true);
    expect(run.outcome.exitCode, run.summary).toBe(0);
    expect(run.leftovers).toEqual([]);
  });
});
