import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRun } from '../checkers/check-run.ts';
import type { LostUpdate, RunResults } from '../checkers/run-results.ts';
import { pausedHolderHistory } from '../test/support/paused-holder-history.ts';
import { PROMISE_CORPUS } from '../test/support/promise-corpus.ts';
import { acquire, acquireReplyLost, ordered, release } from '../test/support/lost-reply-history.ts';
import { resolveConfig } from './run-argv.ts';
import { recheckSummary, runSummary } from './run-summary.ts';

const config = resolveConfig(['--lock=redis', '--nemesis=pause-holder', '--seed=5']);

/** Results as a run with n lost updates under two faults would have them (the rest of the fields a checked run's). */
function withLost(n: number): RunResults {
  const base = checkRun(pausedHolderHistory({ fenced: false }), { fencing: false, token: 'none', exclusive: true });
  const one = base.lostUpdateDetails[0];
  const details: LostUpdate[] = Array.from({ length: n }, (_, i) => ({
    ...one,
    lost: { ...one.lost, writeId: 10 + 2 * i },
    overwrittenBy: { ...one.overwrittenBy, writeId: 11 + 2 * i },
    faults: i < 3 ? ['restart-empty'] : ['clock'],
  }));
  return {
    ...base,
    lostUpdates: n,
    lostUpdateDetails: details,
    lostUpdatesByFault: { 'restart-empty': 3, clock: n - 3 },
  };
}

describe('the closing summary', () => {
  it('gives the run dir, report and reproduce lines from where the user stands (reproduce: was absolute)', () => {
    const runDir = path.join(process.cwd(), 'results', 'redis', '2026-12-05T23-12-05.895Z');
    const text = runSummary(config, runDir, withLost(4), ['restart-empty', 'clock']);
    expect(text).toContain('  run dir: results/redis/2026-12-05T23-12-05.895Z\n');
    expect(text).toContain('  report:  results/redis/2026-12-05T23-12-05.895Z/report.html\n');
    expect(text).toContain('  reproduce: npm run jepsen -- repro results/redis/2026-12-05T23-12-05.895Z\n');
  });

  it('spells every checker as the verdict is spelled: VALID/INVALID, n/a where it does not apply, never true/false', () => {
    const r = checkRun(pausedHolderHistory({ fenced: false }), { fencing: false, token: 'none', exclusive: true });
    const text = runSummary(config, '/tmp/run', r, ['pause-holder']);
    expect(text).not.toMatch(/: (true|false)$/m);
    expect(text).toMatch(/^ {2}checker lost-updates +INVALID$/m);
    // Unfenced, the fencing checker looked at nothing: it said `fencing-order: true`, read as "fencing worked".
    expect(text).toMatch(/^ {2}checker fencing-order +n\/a \(the run is not fenced/m);
    expect(text).toMatch(/^ {2}checker token-order +n\/a \(the strategy declares no monotonic token\)$/m);
    expect(text).toMatch(/^ {2}checker mutex-linearizable +\w+, informational: does not decide the verdict$/m);
    // Liveness looked (it measures), it only does not judge without --max-stall: not n/a.
    expect(text).toMatch(/^ {2}checker liveness +VALID, informational: does not decide the verdict$/m);
  });

  it('attributes the lost updates to the faults active, and counts the ones it does not print', () => {
    const text = runSummary(config, '/tmp/run', withLost(8), ['restart-empty', 'clock']);
    expect(text).toMatch(/lost updates: 8 \(clock 5 · restart-empty 3\) /);
    expect(text.match(/^ {2}lost: /gm)).toHaveLength(3);
    expect(text).toMatch(/^ {2}lost: write #10 by p\d+ .* erased by write #11 .* — under restart-empty$/m);
    expect(text).toContain('  … and 5 more lost updates (the report lists every one)');
  });

  it("says what to do right under the verdict, from the lock's facts", () => {
    const lines = runSummary(config, '/tmp/run', withLost(8), ['restart-empty', 'clock']).split('\n');
    expect(lines[1]).toMatch(/^ {2}INVALID {2}--lock=redis/);
    expect(lines[2]).toMatch(
      /^ {2}what to do: fence the write: redis has no fencing token, .*\(clock 5 · restart-empty 3\) — .* See docs\/locks\.md\.$/,
    );
    const v4 = resolveConfig(['--lock=redlock-v4', '--nemesis=pause-holder', '--seed=5']);
    expect(runSummary(v4, '/tmp/run', withLost(4), ['pause-holder'])).toMatch(
      /^ {2}what to do: .* With redlock-v4: prefer it to 5\.0\.0-beta\.2 .* See docs\/findings\.md#redlock-v4--redlock420\S*\.$/m,
    );
  });

  it('says the same after `check <run-dir>`', () => {
    const text = recheckSummary('/tmp/run', withLost(4), false, {
      run: { lock: 'redlock', faults: ['restart-empty'] },
    });
    expect(text.split('\n')[1]).toMatch(
      /^ {2}what to do: fence the write: redlock has no fencing token, .* See docs\/locks\.md\.$/,
    );
    expect(text).toMatch(/lost updates: 4 \(restart-empty 3 · clock 1\)/);
    expect(text).toMatch(/^ {2}checker fencing-order +n\/a/m);
  });

  it("tallies the promise checker's classes, and names each broken promise", () => {
    const redis = { ttlMs: 2000, lease: { kind: 'ttl-from-request' as const } };
    const paused = checkRun(pausedHolderHistory({ fenced: true }), { fencing: true, promise: redis });
    expect(runSummary(config, '/tmp/run', paused, ['pause-holder'])).toMatch(
      /^ {2}promise: 0 broken · 1 outlived \(pause-holder ×1\)$/m,
    );
    const broken = PROMISE_CORPUS.find((c) => c.name.startsWith('restart-empty'))!;
    const text = recheckSummary('/tmp/run', checkRun(broken.ops, { fencing: false, promise: broken.terms }), false);
    expect(text).toMatch(/^ {2}promise: 1 broken · 0 outlived$/m);
    expect(text).toMatch(
      /^ {2}broken: p1 was granted account 0 at 0\.452 s inside p0's promise .* under restart-empty/m,
    );
  });

  it('says why the promise is unknown for a run recorded before lease terms', () => {
    const old = checkRun(pausedHolderHistory({ fenced: true }), { fencing: true });
    expect(recheckSummary('/tmp/run', old, true)).toMatch(
      /^ {2}promise: unknown — no hold's promise known: the run's record has no lease terms .*run it again to have them checked \(1 overlap whose fault cannot be told\)$/m,
    );
  });
});

describe('the closing summary: what lost replies broke', () => {
  it("carries the orphaned lock's span against the TTL on its liveness lines, and the checker as informational", () => {
    const h = ordered(
      acquireReplyLost(1, { t0: 5, droppedAt: 20, t1: 600 }),
      acquire(1, 10, 520, 'info'),
      acquire(2, 15, 1950),
      release(2, 2_000, 2_010),
    );
    const r = checkRun(h, { fencing: false, liveness: { ttlMs: 2000 } });
    const text = runSummary(resolveConfig(['--lock=redis', '--nemesis=reply-loss-acquire']), '/tmp/run', r, [
      'reply-loss-acquire',
    ]);
    expect(text).toContain(
      "\n  liveness: orphaned lock on account 0 for 1.9 s, TTL 2.0 s: p1's acquire #1 was granted (its key on the server) but its reply was lost (reply-loss-acquire #0) and it ended info; the server kept it until p2 was granted — within the TTL plus p1's retry budget (500 ms): a lease's expected cost\n",
    );
    expect(text).toMatch(/^ {2}checker lost-replies +VALID, informational: does not decide the verdict$/m);
  });

  it('counts the expected orphans past the first, so a long run stays readable', () => {
    const shot = (p: number, t: number) => [
      ...acquireReplyLost(p, { t0: t - 15, droppedAt: t, t1: t + 600 }),
      ...acquire(p, t - 10, t + 500, 'info'),
    ];
    const h = ordered(shot(1, 20), shot(3, 2_100), shot(4, 4_200), acquire(2, 15, 6_500));
    const r = checkRun(h, { fencing: false, liveness: { ttlMs: 2000 } });
    const lines = recheckSummary('/tmp/run', r, false).split('\n');
    const orphans = lines.filter((l) => /^ {2}liveness: (orphaned|\d+ more orphaned)/.test(l));
    expect(orphans).toHaveLength(2);
    expect(orphans[1]).toBe(
      "  liveness: 2 more orphaned locks like it (2.0 s each, all 3 within the TTL plus their clients' retry budget; the report lists every one)",
    );
    expect(r.checkers['lost-replies'].findings).toHaveLength(3);
  });

  it('says a release that never released, and the checker INVALID without changing the verdict', () => {
    const h = ordered(acquire(1, 0, 10), acquire(2, 15, 2_000), release(1, 90, 100), release(2, 2_100, 2_110));
    const r = checkRun(h, { fencing: false, liveness: { ttlMs: 2000 } });
    const text = recheckSummary('/tmp/run', r, false);
    expect(text).toMatch(/^ {2}liveness: never released: p1's release #4 of account 0 returned ok at 100 ms/m);
    expect(text).toMatch(/^ {2}checker lost-replies +INVALID, informational: does not decide the verdict$/m);
    expect(r.checkers['lost-replies'].valid).toBe(false);
  });
});
