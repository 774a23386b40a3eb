import { describe, expect, it } from 'vitest';
import type { Op } from '../history/op.ts';
import { scriptedRun } from '../test/support/scripted-run.ts';

/** One scripted run of `steps` through the CLI's path (scenarioRun → runTest with the scenario's driver). */
const scripted = (name: string, steps: string[], argv: string[], options: Record<string, unknown> = {}) =>
  scriptedRun({ name, steps, options }, argv);

const clientOps = (ops: Op[]) =>
  ops
    .filter((o) => typeof o.process === 'number' && o.type !== 'invoke')
    .map((o) => `p${String(o.process)} ${o.f} ${o.type}`);

/**
 * The driven client mode on real servers: each client takes exactly the steps the script names, in the script's
 * order, and the run is checked and judged like any run — the paused holder's story told by its judge.
 */
describe('scripted scenarios: driven clients on real servers', () => {
  it('--lock=redis, the paused holder: the clients do exactly the script, the story completes, an update is lost', async () => {
    const run = await scripted(
      'paused-holder',
      [
        'A acquire',
        'A read',
        'pause A',
        'wait lease-expired A',
        'B acquire',
        'B read',
        'B write',
        'B release',
        'resume A',
        'A write',
        'A release',
      ],
      ['--lock=redis', '--ttl=1000'],
    );
    const summary = `${run.record.steps.map((s) => `${s.text}: ${s.status} ${s.evidence}`).join('\n')}\n${run.log.join('\n')}`;
    expect(run.record.followed, summary).toBe(true);
    expect(
      run.record.steps.every((s) => s.status === 'done'),
      summary,
    ).toBe(true);
    // The interleaving is the script's: nothing else happened between the clients.
    expect(clientOps(run.ops)).toEqual([
      'p0 acquire ok',
      'p0 read ok',
      'p1 acquire ok',
      'p1 read ok',
      'p1 write ok',
      'p1 release ok',
      'p0 write ok',
      'p0 release ok',
    ]);
    const r = run.outcome.results;
    expect(r.valid, summary).toBe(false);
    expect(r.lostUpdates).toBe(1);
    expect(
      r.faultHits['pause-holder'].shots[0].story?.map((s) => s.status),
      summary,
    ).toEqual(['done', 'done', 'done', 'done', 'done']);
    // The pause was the script's: held until `resume A`, at least the TTL.
    const end = run.ops.find((o) => o.f === 'pause-holder' && (o.value as { phase: string }).phase === 'end')!;
    expect((end.value as { params: { endedBy: string; heldMs: number } }).params).toMatchObject({ endedBy: 'script' });
    expect(run.leftovers).toEqual([]);
  });

  it('a step the run cannot follow (B is not granted a lock A holds) ends the script: diverged, the verdict unknown', async () => {
    const run = await scripted(
      'b-kept-out',
      ['A acquire', 'A read', 'B acquire', 'B read', 'A write'],
      // --watchdog: A's lease is renewed while it holds, so B's acquire (3 × TTL + 1 s) gives up; without it A's
      // lease runs out after the TTL and B is granted — the script is then followed, not diverged.
      ['--lock=redis', '--ttl=500', '--watchdog'],
    );
    expect(run.record.followed).toBe(false);
    expect(run.record.diverged).toMatchObject({ step: 3, text: 'B acquire' });
    expect(run.record.diverged!.why).toMatch(/^B was not granted account 0 \(#\d+, fail: not-acquired\)$/);
    expect(run.record.steps.slice(3).map((s) => s.status)).toEqual(['not-reached', 'not-reached']);
    expect(run.outcome.results.valid).toBe('unknown');
    expect(run.outcome.results.unknownReasons[0]).toMatch(/could not follow its script at step 3 "B acquire"/);
    expect(run.leftovers).toEqual([]);
  });

  it('--lock=etcd --fencing, the delayed write: the late write is refused as stale, the story complete (held), VALID', async () => {
    const run = await scripted(
      'delayed-write-fenced',
      [
        'A acquire',
        'A read',
        'hold A',
        'start A write',
        'wait lease-expired A',
        'B acquire',
        'B read',
        'B write',
        'B release',
        'deliver A',
        'wait A write',
      ],
      ['--lock=etcd', '--fencing', '--ttl=2000'],
    );
    const summary = `${run.record.steps.map((s) => `${s.text}: ${s.status} ${s.evidence}`).join('\n')}\n${run.outcome.results.unknownReasons.join('\n')}`;
    expect(run.record.followed, summary).toBe(true);
    expect(run.record.steps.at(-1)).toMatchObject({ text: 'wait A write', status: 'held' });
    const r = run.outcome.results;
    expect(r.lostUpdates, summary).toBe(0);
    expect(r.staleWritesRejected, summary).toBe(1);
    expect(r.faultHits['delay-write'].shots[0].story?.at(-1)?.status, summary).toBe('held');
    expect(r.valid, summary).toBe(true);
    expect(run.leftovers).toEqual([]);
  });
});
