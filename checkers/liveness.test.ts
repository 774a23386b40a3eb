import { describe, expect, it } from 'vitest';
import { checkLiveness } from './liveness.ts';
import { fail, history, invoke, ok, type Event } from '../test/support/test-history.ts';

/** The event at `t` ms on the run's clock. */
const at = (t: number, e: Event): Event => ({ ...e, time: t * 1e6 });
const fault = (t: number, f: string, phase: 'start' | 'end', targets: string[] = []): Event =>
  at(t, { process: 'nemesis', type: 'info', f, value: { phase, targets, params: {} } });
const acquire = (p: number, t0: number, t1: number, outcome: 'ok' | 'fail' = 'ok', account = 0): Event[] => [
  at(t0, invoke(p, 'acquire', { account })),
  at(t1, outcome === 'ok' ? ok(p, 'acquire', { account }) : fail(p, 'acquire', { account }, 'not-acquired')),
];
const release = (p: number, t0: number, t1: number, account = 0): Event[] => [
  at(t0, invoke(p, 'release', { account })),
  at(t1, ok(p, 'release', { account, released: true })),
];
const write = (p: number, t0: number, t1: number, writeId: number): Event[] => [
  at(t0, invoke(p, 'write', { account: 0, from: 0, to: 1, delta: 1, basedOn: 0 })),
  at(t1, ok(p, 'write', { account: 0, from: 0, to: 1, delta: 1, basedOn: 0, writeId })),
];
/** History events must be in time order, as the journal seals them. */
const ordered = (...events: (Event | Event[])[]) =>
  history(...events.flat().sort((a, b) => (a.time ?? 0) - (b.time ?? 0)));

describe('liveness: recovery after each fault', () => {
  it('measures fault start and fault end to the next acquire that completed ok', () => {
    const h = ordered(
      acquire(0, 400, 500),
      release(0, 600, 610),
      fault(1000, 'partition', 'start', ['redis[0]']),
      fault(3000, 'partition', 'end', ['redis[0]']),
      acquire(1, 2000, 3400),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    expect(r.recoveries).toEqual([
      {
        f: 'partition',
        label: 'partition on redis[0]',
        startMs: 1000,
        endMs: 3000,
        afterStartMs: 2400,
        afterEndMs: 400,
      },
    ]);
    expect(r.recoveryMs).toEqual({ median: 400, max: 400, unrecovered: 0 });
  });

  it('says when no acquire completed after a fault ended, and the run is not invalid for it', () => {
    const h = ordered(
      acquire(0, 0, 10),
      release(0, 20, 30),
      fault(100, 'kill', 'start', ['etcd[0]']),
      fault(200, 'kill', 'end', ['etcd[0]']),
      at(300, invoke(1, 'acquire', { account: 0 })),
      at(9000, invoke(2, 'read', { account: 0 })),
      at(9001, ok(2, 'read', { account: 0, balance: 0, version: 0, lastWriteId: 0 })),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    expect(r.valid).toBe(true);
    expect(r.recoveries[0].afterEndMs).toBeNull();
    expect(r.recoveryMs).toEqual({ median: 0, max: 0, unrecovered: 1 });
    expect(r.findings).toContain(
      'no client acquired the lock after kill on etcd[0] ended at 200 ms (run ended 8.8 s later)',
    );
  });
});

describe('liveness: stalls (waiting clients, no holder, longer than the TTL)', () => {
  // p0 holds 10 → 100 ms; p1 waits from 50 ms, retries after a failed attempt, and gets it at 4,000 ms.
  const stalled = () =>
    ordered(
      acquire(0, 0, 10),
      release(0, 100, 110),
      acquire(1, 50, 1050, 'fail'),
      acquire(1, 1070, 4000),
      release(1, 4100, 4110),
      fault(500, 'pause-node', 'start', ['etcd leader etcd[2]']),
      fault(1500, 'pause-node', 'end', ['etcd leader etcd[2]']),
    );

  it('a retrying waiter is one wait: the free stretch after the release is one stall', () => {
    const r = checkLiveness(stalled(), { ttlMs: 2000 });
    expect(r.stalls).toEqual([
      {
        account: 0,
        fromMs: 100,
        toMs: 4000,
        durationMs: 3900,
        waiters: [1],
        endedBy: 'acquire',
        faults: ['pause-node on etcd leader etcd[2]'],
      },
    ]);
    expect(r.longestStallMs).toBe(3900);
    expect(r.findings).toContain(
      'the lock on account 0 was unavailable for 3.9 s from 100 ms (1 waiting, none holding) during pause-node on etcd leader etcd[2]; TTL 2.0 s',
    );
  });

  it('a free stretch within the TTL is no stall (the lease of a dead holder may take that long)', () => {
    expect(checkLiveness(stalled(), { ttlMs: 5000 }).stalls).toEqual([]);
  });

  it('without a TTL there is no yardstick: no stalls measured, and the note says so', () => {
    const r = checkLiveness(stalled(), { ttlMs: null });
    expect(r.stalls).toEqual([]);
    expect(r.note).toMatch(/no TTL known/);
  });

  it('a wait while someone holds the lock is no stall', () => {
    const h = ordered(acquire(0, 0, 10), acquire(1, 20, 5000), release(0, 4990, 4995));
    expect(checkLiveness(h, { ttlMs: 1000 }).stalls).toEqual([]);
  });

  it('waiters still waiting when the history ends: a deadlock, to the end of the run', () => {
    const h = ordered(
      acquire(0, 0, 10),
      release(0, 20, 30),
      at(40, invoke(1, 'acquire', { account: 0 })),
      at(40, invoke(2, 'acquire', { account: 0 })),
      at(9040, invoke(3, 'read', { account: 0 })),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    expect(r.stalls).toHaveLength(1);
    expect(r.stalls[0]).toMatchObject({ fromMs: 40, toMs: 9040, endedBy: 'history-end', waiters: [1, 2] });
    expect(r.findings[0]).toMatch(
      /free yet untaken from 40 ms to the end of the run \(9\.0 s, 2 waiting\).*a deadlock/,
    );
  });

  it('a deadlock whose last waiter gave up before the history ended is still a deadlock (no acquire ended it)', () => {
    const h = ordered(
      acquire(0, 0, 10),
      at(20, invoke(1, 'acquire', { account: 0 })),
      at(7020, fail(1, 'acquire', { account: 0 }, 'not-acquired')),
      // The harness's own reads after the clients stopped (not a client waiting).
      at(8000, invoke('harness', 'read', { account: 0 })),
      at(8001, ok('harness', 'read', { account: 0 })),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    // p0 never released (killed): its hold ends at its last op (10 ms); p1 waited from 20 ms and gave up.
    expect(r.stalls).toMatchObject([{ fromMs: 20, toMs: 7020, endedBy: 'history-end' }]);
  });

  it('stalls are per account: a holder of account 1 does not make account 0 available', () => {
    const h = ordered(acquire(0, 0, 10, 'ok', 1), acquire(1, 20, 3000, 'ok', 0), release(0, 3100, 3110, 1));
    expect(checkLiveness(h, { ttlMs: 1000 }).stalls.map((s) => [s.account, s.fromMs, s.toMs])).toEqual([[0, 20, 3000]]);
  });
});

describe('liveness: the --max-stall bound', () => {
  const h = () => ordered(acquire(0, 0, 10), release(0, 20, 30), acquire(1, 40, 3040));
  it('without a bound it measures and does not judge', () => {
    const r = checkLiveness(h(), { ttlMs: 1000 });
    expect(r.valid).toBe(true);
    expect(r.note).toMatch(/no --max-stall/);
  });
  it('a stall past the bound fails the liveness checker, naming both numbers', () => {
    const r = checkLiveness(h(), { ttlMs: 1000, maxStallMs: 2500 });
    expect(r.valid).toBe(false);
    expect(r.findings[0]).toBe('longest stall 3.0 s exceeds --max-stall=2500');
  });
  it('a stall within the bound passes', () => {
    expect(checkLiveness(h(), { ttlMs: 1000, maxStallMs: 3500 }).valid).toBe(true);
  });
});

describe('liveness: how long a paused or killed holder kept others out', () => {
  it('from the fault start to the next acquire of that account by another client', () => {
    const h = ordered(
      acquire(0, 0, 10),
      fault(200, 'pause-holder', 'start', ['client p0 (pid 4242)']),
      acquire(1, 100, 2500),
      fault(3000, 'pause-holder', 'end', ['client p0 (pid 4242)']),
      release(0, 3010, 3020),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    expect(r.lockouts).toEqual([
      {
        f: 'pause-holder',
        label: 'pause-holder on client p0 (pid 4242)',
        process: 0,
        account: 0,
        fromMs: 200,
        toMs: 2500,
        durationMs: 2300,
        nextHolder: 1,
      },
    ]);
    expect(r.findings).toContain(
      "pause-holder on client p0 (pid 4242): p0's lock on account 0 kept others out for 2.3 s (p1 acquired next); TTL 2.0 s",
    );
  });

  it('a killed holder whose lock never went to anyone: to the end of the run', () => {
    const h = ordered(
      acquire(0, 0, 10),
      fault(200, 'kill-holder', 'start', ['client p0 (pid 4242)']),
      at(201, { process: 0, type: 'info', f: 'client-exit', value: {}, error: 'client-exited' }),
      fault(210, 'kill-holder', 'end', ['client p0 (pid 4242)']),
      at(300, invoke(5, 'acquire', { account: 0 })),
      at(8200, invoke(6, 'read', { account: 0 })),
    );
    const r = checkLiveness(h, { ttlMs: 2000 });
    expect(r.lockouts).toMatchObject([{ process: 0, toMs: null, durationMs: 8000, nextHolder: null }]);
  });
});

describe('liveness: shares of committed writes and acquire latency', () => {
  it('counts writes per client slot (process mod concurrency) and names the slots that starved', () => {
    const h = ordered(write(0, 0, 1, 1), write(3, 2, 3, 2), write(1, 4, 5, 3), write(4, 6, 7, 4), write(0, 8, 9, 5));
    const r = checkLiveness(h, { ttlMs: 1000, concurrency: 3 });
    expect(r.shares).toEqual([
      { slot: 0, writes: 3, share: 0.6 },
      { slot: 1, writes: 2, share: 0.4 },
      { slot: 2, writes: 0, share: 0 },
    ]);
    expect(r.starved).toEqual([2]);
  });

  it('a run that committed nothing starves nobody in particular', () => {
    expect(checkLiveness(ordered(acquire(0, 0, 10)), { ttlMs: 1000, concurrency: 2 }).starved).toEqual([]);
  });

  it('splits acquire latency by whether the acquire was invoked during a fault', () => {
    const h = ordered(
      acquire(0, 0, 5),
      release(0, 6, 7),
      fault(100, 'latency', 'start'),
      acquire(1, 150, 450),
      release(1, 460, 470),
      fault(500, 'latency', 'end'),
      acquire(0, 600, 603),
    );
    const r = checkLiveness(h, { ttlMs: 1000 });
    expect(r.acquireLatency.duringFaults).toMatchObject({ count: 1, p50: 300 });
    expect(r.acquireLatency.outsideFaults).toMatchObject({ count: 2, max: 5 });
  });
});
