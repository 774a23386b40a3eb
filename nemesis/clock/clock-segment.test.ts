import { describe, expect, it } from 'vitest';
import {
  REAL_TIME,
  changeRate,
  driftAt,
  fakeMonotonic,
  fakeRealtime,
  isRealTime,
  toPpb,
  type Segment,
} from './clock-segment.ts';

const S = 1_000_000_000n; // one second in ns

describe('clock segments (the arithmetic shim.c shares)', () => {
  it('is real time until a rate is set', () => {
    expect(fakeMonotonic(REAL_TIME, 5n * S)).toBe(5n * S);
    expect(fakeRealtime(REAL_TIME, 0n, 1_700_000_000n * S, 5n * S)).toBe(1_700_000_000n * S);
    expect(isRealTime(REAL_TIME)).toBe(true);
  });

  it('runs at r from the change on, starting where the clock was at the change', () => {
    const twice = changeRate(REAL_TIME, 10n * S, toPpb(2));
    expect(twice).toEqual({ baseMonoNs: 10n * S, baseDriftNs: 0n, ratePpb: 2n * S });
    expect(fakeMonotonic(twice, 10n * S)).toBe(10n * S);
    expect(fakeMonotonic(twice, 13n * S)).toBe(16n * S); // 3 s real → 6 s fake
    const half = changeRate(twice, 13n * S, toPpb(0.5));
    expect(half.baseDriftNs).toBe(3n * S);
    expect(fakeMonotonic(half, 13n * S)).toBe(16n * S); // continuous at the change
    expect(fakeMonotonic(half, 17n * S)).toBe(18n * S); // 4 s real → 2 s fake
  });

  it('is continuous at every change of a sequence, to the nanosecond', () => {
    const rates = [2, 0.5, 0, 1.01, 0.99, 3, 0, 1, 0.25];
    let seg: Segment = REAL_TIME;
    let t = 1_000n * S;
    for (const [i, r] of rates.entries()) {
      t += BigInt(i * 7_919_000 + 123); // uneven gaps, not whole ms
      const next = changeRate(seg, t, toPpb(r));
      expect(fakeMonotonic(next, t)).toBe(fakeMonotonic(seg, t));
      expect(fakeRealtime(next, 5n, 9n * S, t)).toBe(fakeRealtime(seg, 5n, 9n * S, t));
      seg = next;
    }
  });

  it('never lets the monotonic clock decrease, across any sequence of changes', () => {
    const rates = [0.5, 0, 2, 0.001, 0, 1, 1000, 0.3333, 0, 1.7];
    let seg: Segment = REAL_TIME;
    let last = -1n;
    for (let step = 0; step < 400; step++) {
      const t = 50n * S + BigInt(step) * 2_500_001n;
      if (step % 40 === 39) seg = changeRate(seg, t, toPpb(rates[(step / 40) | 0]));
      const fake = fakeMonotonic(seg, t);
      expect(fake).toBeGreaterThanOrEqual(last);
      last = fake;
    }
  });

  it('freezes the clock at r = 0 and lets it go on from there at r = 1', () => {
    const frozen = changeRate(REAL_TIME, 20n * S, toPpb(0));
    expect(fakeMonotonic(frozen, 20n * S)).toBe(20n * S);
    expect(fakeMonotonic(frozen, 95n * S)).toBe(20n * S);
    const thawed = changeRate(frozen, 95n * S, toPpb(1));
    expect(thawed.baseDriftNs).toBe(-75n * S); // 75 s behind real time, for good
    expect(fakeMonotonic(thawed, 96n * S)).toBe(21n * S);
    expect(isRealTime(thawed)).toBe(false);
  });

  it('adds a jump (the offset) on top of a rate: the wall clock is real + offset + drift', () => {
    const fast = changeRate(REAL_TIME, 100n * S, toPpb(1.5));
    const wall = 1_700_000_000n * S;
    // 10 s later: 5 s of drift from the rate, plus a 120 s jump.
    expect(fakeRealtime(fast, 120n * S, wall + 10n * S, 110n * S)).toBe(wall + 135n * S);
    // The jump moves the clock at once; the rate keeps its slope across it.
    const a = fakeRealtime(fast, 0n, wall + 10n * S, 110n * S);
    const b = fakeRealtime(fast, -30n * S, wall + 10n * S, 110n * S);
    expect(a - b).toBe(30n * S);
    expect(fakeRealtime(fast, -30n * S, wall + 12n * S, 112n * S) - b).toBe(3n * S);
  });

  it('truncates toward zero like C, whatever the sign of the drift', () => {
    const slow = changeRate(REAL_TIME, 0n, 999_999_999n); // 1 ppb slow
    expect(driftAt(slow, 1_999_999_999n)).toBe(-1n); // −1.999999999 → −1
    const fast = changeRate(REAL_TIME, 0n, 1_000_000_001n);
    expect(driftAt(fast, 1_999_999_999n)).toBe(1n);
  });

  it('refuses rates the shim must never see', () => {
    for (const r of [-0.5, Number.NaN, Number.POSITIVE_INFINITY, 1001]) expect(() => toPpb(r)).toThrow(RangeError);
    expect(() => changeRate(REAL_TIME, 0n, -1n)).toThrow(RangeError);
    expect(toPpb(0.5)).toBe(500_000_000n);
  });
});
