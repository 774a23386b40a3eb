import { describe, expect, it } from 'vitest';
import { clientPhaseRate, okLatencyP50Ms, type CountedOp } from './throughput-window.ts';

const s = (x: number) => x * 1e9;
const op = (process: CountedOp['process'], type: CountedOp['type'], atS: number): CountedOp => ({
  process,
  type,
  time: s(atS),
});

describe('ok client ops a second while every client runs', () => {
  it('starts at the first op of the slot that started last and counts the ok ops of the next windowS', () => {
    const ops = [
      op(0, 'invoke', 0.0),
      op(0, 'ok', 0.5), // before slot 1 started: ramp, not counted
      op(1, 'invoke', 1.0), // slot 1's first op: the window starts here
      op(0, 'invoke', 1.0),
      op(1, 'ok', 1.5),
      op(0, 'fail', 1.6), // not ok
      op(0, 'invoke', 2.0),
      op(0, 'ok', 3.0), // the window's last instant: counted
      op(1, 'invoke', 3.0),
      op(1, 'ok', 3.5), // past from + 2 s
    ];
    const r = clientPhaseRate(ops, 2, 2);
    expect(r).toEqual({ okPerS: 1, ok: 2, fromNs: s(1), toNs: s(3), coveredS: 2, slotsStarted: 2 });
  });

  it("maps a restarted client's process and a watchdog's to their slot; harness and nemesis ops do not count", () => {
    const ops = [
      op(0, 'invoke', 0),
      op('nemesis', 'info', 0.1),
      op(3, 'invoke', 1), // slot 1 (3 mod 2), second generation: its first op starts the window
      op(100_000, 'ok', 1.2), // process 0's watchdog renewal
      op(3, 'ok', 1.4),
      op('harness', 'ok', 1.5),
      op(0, 'ok', 5),
    ];
    const r = clientPhaseRate(ops, 2, 10);
    expect(r.fromNs).toBe(s(1));
    // The ops end at 5 s, before the 10 s window: it ends there and says so.
    expect(r.toNs).toBe(s(5));
    expect(r.coveredS).toBe(4);
    expect(r.ok).toBe(3);
    expect(r.okPerS).toBe(0.75);
  });

  it('says how many slots started: with one that never did, the window starts at the last of those that did', () => {
    const r = clientPhaseRate([op(0, 'invoke', 0), op(2, 'invoke', 1), op(0, 'ok', 2), op(2, 'ok', 3)], 4, 5);
    expect(r).toEqual({ okPerS: 1, ok: 2, fromNs: s(1), toNs: s(3), coveredS: 2, slotsStarted: 2 });
  });

  it('no client op: zero, not NaN', () => {
    expect(clientPhaseRate([op('harness', 'ok', 1)], 1, 5)).toEqual({
      okPerS: 0,
      ok: 0,
      fromNs: 0,
      toNs: 0,
      coveredS: 0,
      slotsStarted: 0,
    });
  });
});

describe('the p50 of an op kind, invoke to ok', () => {
  const f = (process: number, type: CountedOp['type'], atMs: number, name = 'acquire'): CountedOp => ({
    process,
    type,
    time: atMs * 1e6,
    f: name,
  });

  it("pairs each completion with its own process's invoke; fails, other kinds and ops outside the window do not count", () => {
    const ops = [
      f(0, 'invoke', 0),
      f(1, 'invoke', 1),
      f(0, 'ok', 2), // 2 ms: before the window, not counted
      f(1, 'ok', 11), // 10 ms
      f(0, 'invoke', 12, 'read'),
      f(0, 'ok', 13, 'read'), // another kind
      f(0, 'invoke', 20),
      f(0, 'ok', 21), // 1 ms
      f(1, 'invoke', 20),
      f(1, 'fail', 40), // not ok
      f(0, 'invoke', 30),
      f(0, 'ok', 33), // 3 ms
    ];
    expect(okLatencyP50Ms(ops, 'acquire', 5e6, 100e6)).toBe(3);
  });

  it('none: null', () => {
    expect(okLatencyP50Ms([f(0, 'invoke', 0), f(0, 'fail', 1)], 'acquire', 0, 1e9)).toBeNull();
  });
});
