import { describe, expect, it } from 'vitest';
import { EXIT } from '../common/exit-codes.ts';
import { checkOptionsFor, checkRun, DECIDING_CHECKERS } from './check-run.ts';
import { verdictExitCode, verdictWord } from './verdict.ts';
import { generateBankHistory } from '../test/support/memory-bank.ts';
import { PROMISE_CORPUS } from '../test/support/promise-corpus.ts';
import { pausedHolderHistory } from '../test/support/paused-holder-history.ts';
import {
  fail,
  finalRead,
  history,
  invoke,
  ok,
  read,
  row,
  writeValue,
  type Event,
  twoWritersLoseOne,
} from '../test/support/test-history.ts';

const at = (time: number, e: Event): Event => ({ ...e, time });

// p1 is granted the lock while p0 (paused by the nemesis) still believes it holds it; p0's late write is
// refused as stale. A suspected overlap, no damage: valid.
const fencedRun = history(
  at(0, invoke(0, 'acquire', { account: 0 })),
  at(2_000_000, ok(0, 'acquire', { account: 0, token: '5' })), // acquire 2 ms
  at(3_000_000, invoke(0, 'read', { account: 0 })),
  at(4_000_000, ok(0, 'read', { account: 0, balance: 100, version: 0, lastWriteId: 0 })), // read 1 ms
  at(5_000_000, {
    process: 'nemesis',
    type: 'info',
    f: 'pause',
    value: { phase: 'start', targets: ['client p0'], params: { durationMs: 20 } },
  }),
  at(6_000_000, invoke(1, 'acquire', { account: 0 })),
  at(10_000_000, ok(1, 'acquire', { account: 0, token: '6' })), // acquire 4 ms
  read(1, 100, 0).map((e, i) => at(11_000_000 + i * 1_000_000, e)),
  at(13_000_000, invoke(1, 'write', writeValue(100, 120, 0, '6'))),
  at(16_000_000, ok(1, 'write', { ...writeValue(100, 120, 0, '6'), writeId: 1 })), // write 3 ms
  at(17_000_000, invoke(1, 'release', { account: 0, token: '6' })),
  at(18_000_000, ok(1, 'release', { account: 0, released: true })), // release 1 ms
  at(25_000_000, { process: 'nemesis', type: 'info', f: 'pause', value: { phase: 'end', targets: ['client p0'] } }),
  at(26_000_000, invoke(0, 'write', writeValue(100, 110, 0, '5'))),
  at(27_000_000, fail(0, 'write', writeValue(100, 110, 0, '5'), 'stale-token')),
  at(28_000_000, invoke(0, 'release', { account: 0, token: '5' })),
  at(29_000_000, ok(0, 'release', { account: 0, released: false })), // release 1 ms
  finalRead(0, 100, 120, [row(1, 1, 100, 120, 0, '6')], '6').map((e, i) => at(30_000_000 + i * 1_000_000, e)),
);
describe('checkRun on a literal fenced run', () => {
  const r = checkRun(fencedRun, { fencing: true });

  it('is valid: the overlap is only suspected and the fence refused the stale write', () => {
    expect(r.valid).toBe(true);
    for (const name of DECIDING_CHECKERS) expect(r.checkers[name].valid, name).toBe(true);
    expect(r.lostUpdates).toBe(0);
    expect(r.lostUpdateDetails).toEqual([]);
    expect(r.staleWritesRejected).toBe(1);
    expect(r.overlaps).toBe(1);
    expect(r.confirmedOverlaps).toBe(0);
    expect(r.overlapDetails[0]).toMatchObject({ account: 0, kind: 'suspected', a: { process: 0 }, b: { process: 1 } });
  });

  it('pairs the fault window', () => {
    expect(r.faults).toEqual([
      { f: 'pause', start: 5_000_000, end: 25_000_000, targets: ['client p0'], params: { durationMs: 20 } },
    ]);
  });

  it('counts ops by outcome and f (nemesis records are not ops)', () => {
    expect(r.opCounts).toEqual({
      total: 9,
      ok: 8,
      fail: 1,
      info: 0,
      byF: {
        acquire: { ok: 2, fail: 0, info: 0 },
        read: { ok: 2, fail: 0, info: 0 },
        write: { ok: 1, fail: 1, info: 0 },
        release: { ok: 2, fail: 0, info: 0 },
        'final-read': { ok: 1, fail: 0, info: 0 },
      },
    });
  });

  it('measures latency in ms for ok ops, duration over the whole history, and throughput of client ok ops', () => {
    expect(r.latency.acquire).toEqual({ count: 2, p50: 2, p90: 4, p99: 4, max: 4 });
    expect(r.latency.read).toEqual({ count: 2, p50: 1, p90: 1, p99: 1, max: 1 });
    expect(r.latency.write).toEqual({ count: 1, p50: 3, p90: 3, p99: 3, max: 3 });
    expect(r.latency.release.count).toBe(2);
    expect(r.durationMs).toBe(31);
    expect(r.throughput).toBeCloseTo(7 / 0.031, 6); // 7 client ok ops; the harness's final read is not load
  });

  it('keeps every checker result, including the informational mutex check', () => {
    expect(Object.keys(r.checkers).sort()).toEqual([
      'fencing-order',
      'linearizable',
      'liveness',
      'lost-replies',
      'lost-updates',
      'mutex-linearizable',
      'mutual-exclusion',
      'promise',
      'token-order',
    ]);
    expect(r.checkers['mutex-linearizable']).toMatchObject({ decides: false });
    expect(r.checkers['lost-replies']).toMatchObject({ decides: false });
    // The stale holder's release reports released: false, so as a mutex p1's acquire is the violation.
    expect(r.checkers['mutex-linearizable'].valid).toBe(false);
  });

  it('is plain JSON (results.json)', () => {
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
});

describe('checkRun verdicts', () => {
  it('strategy none: no lock ops, and the lost updates alone make it invalid', () => {
    const h = twoWritersLoseOne();
    const r = checkRun(h, { fencing: false });
    expect(r.valid).toBe(false);
    expect(r.lostUpdates).toBe(1);
    expect(r.checkers['mutual-exclusion']).toMatchObject({ valid: true, intervals: 0 });
    expect(r.checkers.linearizable.valid).toBe(false);
    expect(r.latency.acquire.count).toBe(0);
  });

  it('a strategy that takes no lock (exclusive: false): overlapping holders are not counted as overlaps', () => {
    const acq = (p: number) => [invoke(p, 'acquire', { account: 0 }), ok(p, 'acquire', { account: 0, attempts: 1 })];
    const h = history(
      ...acq(0),
      ...acq(1),
      read(0, 100, 0),
      read(1, 100, 0),
      invoke(0, 'write', writeValue(100, 110, 0)),
      ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
      invoke(1, 'write', writeValue(100, 120, 0)),
      fail(1, 'write', writeValue(100, 120, 0), 'version-conflict'),
      finalRead(0, 100, 110, [row(1, 0, 100, 110, 0)]),
    );
    const locked = checkRun(h, { fencing: true });
    expect(locked.overlaps).toBeGreaterThan(0);
    const r = checkRun(
      h,
      checkOptionsFor({ config: { fencing: false, minWrites: 1 }, strategy: { token: 'version', exclusive: false } }),
    );
    expect(r.overlaps).toBe(0);
    expect(r.checkers['mutual-exclusion']).toMatchObject({
      valid: true,
      note: expect.stringMatching(/not applicable/),
    });
    expect(r.staleWritesRejected).toBe(1);
    expect(r.valid).toBe(true);
  });

  it('checkOptionsFor: the version column counts as a fence; exclusive unless the strategy says otherwise', () => {
    const evidence = { minWrites: 10, concurrency: 1 };
    const liveness = { ttlMs: null, maxStallMs: null };
    expect(checkOptionsFor({ config: { fencing: true }, strategy: { token: 'monotonic' } })).toEqual({
      fencing: true,
      exclusive: true,
      token: 'monotonic',
      evidence,
      liveness,
    });
    expect(checkOptionsFor({ config: { fencing: false }, strategy: { token: 'version', exclusive: false } })).toEqual({
      fencing: true,
      exclusive: false,
      token: 'version',
      evidence,
      liveness,
    });
    expect(checkOptionsFor({})).toEqual({ fencing: false, exclusive: true, evidence, liveness });
    expect(checkOptionsFor({ config: { minWrites: 3, concurrency: 4 } }).evidence).toEqual({
      minWrites: 3,
      concurrency: 4,
    });
    // The run's fault list: its targeted faults must have hit for the verdict to be valid.
    expect(checkOptionsFor({ faults: ['pause-holder', 'clock'] })).toEqual({
      fencing: false,
      exclusive: true,
      evidence,
      liveness,
      faults: ['pause-holder', 'clock'],
    });
    // …those that did not apply to it (never injected) included: a run that tested nothing of a fault is no
    // evidence about it. Their reason goes with them, for the "never fired" line.
    expect(
      checkOptionsFor({
        faults: ['pause-holder', 'restart-empty'],
        skippedFaults: { 'restart-empty': '--lock=etcd uses no Redis master' },
      }),
    ).toMatchObject({
      faults: ['pause-holder', 'restart-empty'],
      skippedFaults: { 'restart-empty': '--lock=etcd uses no Redis master' },
    });
  });

  it('a target left faulted (a heal that failed): unknown, never VALID, saying how to heal it (audit R3)', () => {
    const target = {
      leftFaulted: [
        { server: 'r0', action: 'pause', heal: './sig.sh 16390 CONT', error: './sig.sh 16390 CONT exited 1' },
      ],
    };
    const opts = checkOptionsFor({ target });
    expect(opts.leftFaulted).toEqual([
      'r0: the server may still be stopped: ./sig.sh 16390 CONT (its heal failed: ./sig.sh 16390 CONT exited 1)',
    ]);
    const r = checkRun(fencedRun, { ...opts, fencing: true });
    expect(verdictWord(r.valid)).toBe('UNKNOWN');
    expect(verdictExitCode(r.valid)).toBe(EXIT.unknown);
    expect(r.unknownReasons[0]).toContain('r0: the server may still be stopped: ./sig.sh 16390 CONT');
    // A counterexample stays conclusive.
    expect(checkRun(twoWritersLoseOne(), { ...opts, fencing: false }).valid).toBe(false);
  });

  it('a run stopped early on a live lost update: INVALID when the ledger confirms it, unknown (never VALID) when not', () => {
    const stopped = checkOptionsFor({ stoppedEarly: { atS: 4.21, account: 0, writeId: 2, missed: 1 } }).stoppedEarly;
    expect(stopped).toBe('stopped early on a live lost update at 4.2 s: write #2 did not see #1 on account 0');
    const lost = checkRun(twoWritersLoseOne(), { fencing: false, stoppedEarly: stopped });
    expect(lost.valid).toBe(false);
    expect(lost.unknownReasons).toEqual([]);
    // The same fenced history that is VALID above, said to have stopped early: the checkers find no lost update.
    const clean = checkRun(fencedRun, { fencing: true, stoppedEarly: stopped });
    expect(clean.valid).toBe('unknown');
    expect(clean.unknownReasons).toEqual([
      `${stopped}, but the ledger shows no lost update: a run cut short earns no VALID`,
    ]);
  });

  it('liveness: measured and never deciding without --max-stall; past the bound the run is INVALID with 0 lost', () => {
    // p0 holds 0–1 ms and releases; p1 waits from 2 ms and only gets the lock at 5,000 ms: a 5 s stall.
    const at = (ms: number, e: ReturnType<typeof invoke>) => ({ ...e, time: ms * 1e6 });
    const h = history(
      at(0, invoke(0, 'acquire', { account: 0 })),
      at(1, ok(0, 'acquire', { account: 0 })),
      at(2, invoke(1, 'acquire', { account: 0 })),
      at(3, invoke(0, 'release', { account: 0 })),
      at(4, ok(0, 'release', { account: 0, released: true })),
      at(5000, ok(1, 'acquire', { account: 0 })),
    );
    const measured = checkRun(h, { fencing: false, liveness: { ttlMs: 1000 } });
    expect(measured.checkers.liveness).toMatchObject({ valid: true, decides: false, longestStallMs: 4997 });
    expect(measured.liveness).toMatchObject({ longestStallMs: 4997, stalls: 1, maxStallMs: null });
    expect(measured.valid).toBe(true);
    const bound = checkRun(h, { fencing: false, liveness: { ttlMs: 1000, maxStallMs: 2000 } });
    expect(bound.valid).toBe(false);
    expect(bound.lostUpdates).toBe(0);
    expect(bound.checkers.liveness.valid).toBe(false);
    expect(bound.liveness?.findings[0]).toBe('longest stall 5.0 s exceeds --max-stall=2000');
    expect(checkOptionsFor({ config: { ttlMs: 2000, maxStallMs: 3000, concurrency: 4 } }).liveness).toEqual({
      ttlMs: 2000,
      maxStallMs: 3000,
      concurrency: 4,
    });
  });

  it('a checker that crashes makes its verdict unknown, not the run crash', () => {
    // A final read without a ledger: the lost-updates checker cannot work with it.
    const h = history(
      invoke('harness', 'final-read', { account: 0 }),
      ok('harness', 'final-read', { account: 0, initialBalance: 0, balance: 0 }),
    );
    const r = checkRun(h, { fencing: false });
    expect(r.checkers['lost-updates'].valid).toBe('unknown');
    expect(r.checkers['lost-updates'].error).toMatch(/TypeError/);
    expect(r.valid).toBe('unknown');
  });

  it('a generated well-locked run is valid', async () => {
    const { history: h } = await generateBankHistory({ ops: 3000, processes: 5, accounts: 2, seed: 3 });
    const r = checkRun(h, { fencing: false });
    expect(r.valid).toBe(true);
    expect(r.overlaps).toBe(0);
    expect(r.checkers.linearizable).toMatchObject({ valid: true, partitions: 2 });
  });

  it('a generated run with a broken lock loses updates, and every deciding checker that can see it says so', async () => {
    const { history: h, brokenGrants } = await generateBankHistory({
      ops: 3000,
      processes: 5,
      seed: 3,
      brokenLockRate: 0.1,
    });
    expect(brokenGrants).toBeGreaterThan(0);
    const r = checkRun(h, { fencing: false });
    expect(r.valid).toBe(false);
    expect(r.lostUpdates).toBeGreaterThan(0);
    expect(r.confirmedOverlaps).toBeGreaterThan(0);
    expect(r.checkers.linearizable.valid).toBe(false);
    expect(r.checkers['fencing-order'].valid).toBe(true);
  });

  it('a generated fenced run with a broken lock has stale writes rejected and tokens in order', async () => {
    const { history: h } = await generateBankHistory({
      ops: 3000,
      processes: 5,
      seed: 3,
      brokenLockRate: 0.1,
      fencing: true,
    });
    const r = checkRun(h, { fencing: true });
    expect(r.staleWritesRejected).toBeGreaterThan(0);
    expect(r.checkers['fencing-order']).toMatchObject({ valid: true, staleWritesRejected: r.staleWritesRejected });
  });

  it('timed-out writes (info) do not make a well-locked run invalid', async () => {
    const { history: h } = await generateBankHistory({ ops: 3000, processes: 5, seed: 4, infoRate: 0.05 });
    expect(h.some((op) => op.type === 'info')).toBe(true);
    const r = checkRun(h, { fencing: false });
    expect(r.valid).toBe(true);
    expect(r.checkers.linearizable.valid).toBe(true);
  });
});

describe('the promise checker in a run', () => {
  const redis = { ttlMs: 2000, lease: { kind: 'ttl-from-request' as const } };

  it('checkOptionsFor hands it the TTL and the lease the record has, null included; none from an older record', () => {
    expect(
      checkOptionsFor({ config: { ttlMs: 2000 }, strategy: { lease: { kind: 'ttl-from-request' } } }).promise,
    ).toEqual(redis);
    expect(checkOptionsFor({ config: { ttlMs: 2000 }, strategy: { lease: null } }).promise).toEqual({
      ttlMs: 2000,
      lease: null,
    });
    expect(checkOptionsFor({ config: { ttlMs: 2000 }, strategy: { token: 'none' } }).promise).toBeUndefined();
    // A damaged record is not guessed from: a drift factor of "lots" would make windows of NaN.
    const damaged = { kind: 'ttl-from-request', driftFactor: 'lots' };
    expect(checkOptionsFor({ config: { ttlMs: 2000 }, strategy: { lease: damaged } }).promise).toBeUndefined();
  });

  it('a broken promise makes the run INVALID, fenced or not', () => {
    const broken = PROMISE_CORPUS.find((c) => c.name.startsWith('restart-empty'))!;
    const r = checkRun(broken.ops, { fencing: true, promise: broken.terms });
    expect(r.valid).toBe(false);
    expect(r.checkers.promise).toMatchObject({ valid: false, counts: { broke: 1, outlived: 0 } });
    expect(r.checkers.promise.overlaps?.[0].causes).toEqual(['restart-empty']);
  });

  it("an outlived lease is a finding: Kleppmann's fenced pause stays VALID for the promise", () => {
    const r = checkRun(pausedHolderHistory({ fenced: true }), { fencing: true, promise: redis });
    expect(r.checkers.promise).toMatchObject({
      valid: true,
      counts: { broke: 0, outlived: 1 },
      byCause: { 'pause-holder': 1 },
    });
  });

  it('says n/a for a strategy that takes no lock', () => {
    const r = checkRun(pausedHolderHistory({ fenced: true }), { fencing: true, exclusive: false, promise: redis });
    expect(r.checkers.promise.note).toMatch(/^not applicable: /);
  });
});
