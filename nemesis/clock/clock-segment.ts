/**
 * The arithmetic of a clock running at a rate, shared with shim.c (which computes the same thing in C, integers
 * only, so the two never disagree by a rounding). A segment says how far a clock family has drifted from real time
 * since the harness last changed its rate; every quantity is in nanoseconds of the real CLOCK_MONOTONIC, the one
 * clock the harness reads to the nanosecond (`process.hrtime.bigint()`):
 *
 *   drift(m)  = baseDriftNs + trunc(max(0, m − baseMonoNs) × (ratePpb − 1e9) / 1e9)
 *   monotonic = m + drift(m)                       (= baseFake + (m − baseMono) × r)
 *   realtime  = realRealtime + offsetNs + drift(m)
 *
 * A rate change starts the new segment where the old one's fake time is at the change (`changeRate`), so the clock
 * never jumps; a jump is the offset moving. With r ≥ 0 each segment is non-decreasing, so the monotonic clock never
 * goes backwards across any sequence of changes.
 */

export const UNIT_PPB = 1_000_000_000n;

export interface Segment {
  /** Real monotonic time at which this segment began. */
  readonly baseMonoNs: bigint;
  /** How far the clock was ahead (+) or behind (−) real time at `baseMonoNs`. */
  readonly baseDriftNs: bigint;
  /** Fake nanoseconds per real second, in parts per billion: 1e9 is real speed, 0 is frozen. */
  readonly ratePpb: bigint;
}

/** Real time: no drift, rate 1. */
export const REAL_TIME: Segment = Object.freeze({ baseMonoNs: 0n, baseDriftNs: 0n, ratePpb: UNIT_PPB });

/** Fastest rate the harness writes: far beyond any fault worth running, and far from overflowing int64 drift. */
export const MAX_RATE = 1000;

/** A rate as the shim stores it. Refuses what the shim must never see: a negative, non-finite or absurd rate. */
export function toPpb(rate: number): bigint {
  if (!Number.isFinite(rate) || rate < 0 || rate > MAX_RATE) {
    throw new RangeError(`clock rate must be a finite number in [0, ${MAX_RATE}] (1 = real speed), got ${rate}`);
  }
  return BigInt(Math.round(rate * 1e9));
}

/** BigInt division truncates toward zero, as C's does: the shim's result to the nanosecond. */
export function driftAt(seg: Segment, monoNs: bigint): bigint {
  const rate = seg.ratePpb < 0n ? 0n : seg.ratePpb;
  const x = monoNs > seg.baseMonoNs ? monoNs - seg.baseMonoNs : 0n;
  return seg.baseDriftNs + (x * (rate - UNIT_PPB)) / UNIT_PPB;
}

/** What a shimmed process reads from CLOCK_MONOTONIC when the real one says `monoNs`. */
export function fakeMonotonic(seg: Segment, monoNs: bigint): bigint {
  return monoNs + driftAt(seg, monoNs);
}

/** What a shimmed process reads from CLOCK_REALTIME: the real wall clock, the jump, and the drift of the rate. */
export function fakeRealtime(seg: Segment, offsetNs: bigint, realtimeNs: bigint, monoNs: bigint): bigint {
  return realtimeNs + offsetNs + driftAt(seg, monoNs);
}

/** The segment that runs at `ratePpb` from real monotonic time `nowNs` on, joined to `seg` without a jump. */
export function changeRate(seg: Segment, nowNs: bigint, ratePpb: bigint): Segment {
  if (ratePpb < 0n) throw new RangeError(`clock rate must not be negative, got ${ratePpb} ppb`);
  return { baseMonoNs: nowNs, baseDriftNs: driftAt(seg, nowNs), ratePpb };
}

/** True when the segment leaves its clock where real time is. */
export function isRealTime(seg: Segment): boolean {
  return seg.ratePpb === UNIT_PPB && seg.baseDriftNs === 0n;
}
