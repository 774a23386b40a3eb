import { describe, expect, it } from 'vitest';
import type { PromiseOverlap } from '../checkers/promise/promise-overlaps.ts';
import { promiseWindows } from './promise-windows.ts';

const ns = (ms: number) => ms * 1e6;
const side = (process: number, acquireIndex: number, window: [number, number] | null, ownEnd?: number) => ({
  process,
  acquireIndex,
  invokedAt: 0,
  acquiredAt: ns(window ? window[0] + 1 : 0),
  releasedAt: ns(3000),
  window: window && { start: ns(window[0]), end: ns(window[1]) },
  ...(ownEnd !== undefined && window ? { ownWindow: { start: ns(window[0]), end: ns(ownEnd) } } : {}),
});
const overlap = (cls: PromiseOverlap['class'], a: PromiseOverlap['a'], b: PromiseOverlap['b']): PromiseOverlap => ({
  account: 0,
  class: cls,
  a,
  b,
  late: [],
  causes: [],
  lateWrites: [],
  why: '',
});

describe('promiseWindows', () => {
  it("draws each hold's promise once, on its lane, in the gravest class it took part in, in ms", () => {
    const p0 = side(0, 1, [0, 2000.123456]);
    const windows = promiseWindows(
      [overlap('outlived', p0, side(1, 5, [1500, 3500])), overlap('broke', p0, side(2, 9, [500, 2500], 2900))],
      (p) => [0, 1, 2][p],
    );
    expect(windows).toEqual([
      { l: 0, s: 0, e: 2000.12, c: 0, label: "p0's promise — broke its promise (overlapped p1, p2)" },
      { l: 2, s: 500, e: 2500, oe: 2900, c: 0, label: "p2's promise — broke its promise (overlapped p0)" },
      { l: 1, s: 1500, e: 3500, c: 1, label: "p1's promise — outlived its lease (overlapped p0)" },
    ]);
  });

  it('leaves out a hold whose promise is unknown and one whose process has no lane', () => {
    const windows = promiseWindows(
      [
        overlap('unknown', side(0, 1, null), side(1, 5, [10, 20])),
        overlap('outlived', side(3, 2, [0, 5]), side(1, 6, [4, 9])),
      ],
      (p) => (p === 3 ? undefined : p),
    );
    expect(windows.map((w) => w.label)).toEqual([
      "p1's promise — outlived its lease (overlapped p3)",
      "p1's promise — whose fault is unknown (overlapped p0)",
    ]);
  });
});
