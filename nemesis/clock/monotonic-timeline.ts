import { REAL_TIME, UNIT_PPB, driftAt, type Segment } from './clock-segment.ts';

/**
 * Every monotonic segment one clock record has had, in the order the harness wrote them: enough to turn a reading
 * of the faked CLOCK_MONOTONIC back into the real one. Why it exists: a client stamps its ops with its own
 * `process.hrtime.bigint()` (workloads/client.ts, `realClock.now`), and under a `process`-scope rate that reading is
 * the shim's fake — slowed, and behind by the drift for good once the rate is back to 1. Journalled as it is, a slowed
 * client's ops would sit seconds early in the history and its order against every other process would be wrong. The
 * fake monotonic clock is continuous and non-decreasing, so each fake reading maps back to one real instant (to the
 * start of a frozen stretch under r = 0, the one case with many).
 */
export class MonotonicTimeline {
  private readonly segments: Segment[] = [REAL_TIME];

  /** A segment the harness wrote, starting at its `baseMonoNs` (never before the last one's). */
  push(seg: Segment): void {
    const last = this.segments[this.segments.length - 1]!;
    if (seg.baseMonoNs < last.baseMonoNs)
      throw new RangeError(`monotonic segment at ${seg.baseMonoNs} ns starts before the last one (${last.baseMonoNs})`);
    this.segments.push(seg);
  }

  /** True while no segment ever moved the clock: a reading is then real as it is. */
  get untouched(): boolean {
    return this.segments.length === 1;
  }

  /** The real CLOCK_MONOTONIC instant at which the faked clock read `fakeNs`. */
  realAt(fakeNs: bigint): bigint {
    if (this.untouched) return fakeNs;
    // The last segment whose fake start is at or before the reading: segments are joined without a jump, so the
    // fake starts are non-decreasing and the reading lies inside that one.
    let i = this.segments.length - 1;
    while (i > 0 && fakeStart(this.segments[i]!) > fakeNs) i--;
    // A reading at the very start of a segment also ends the one before; when that one was frozen (r = 0) the reading
    // could have been taken anywhere in it: its start, the earliest, is the one instant that keeps every order.
    while (i > 0 && fakeStart(this.segments[i - 1]!) === fakeNs) i--;
    const seg = this.segments[i]!;
    const next = this.segments[i + 1];
    const x = fakeNs - fakeStart(seg);
    const real = seg.ratePpb > 0n ? seg.baseMonoNs + (x * UNIT_PPB) / seg.ratePpb : seg.baseMonoNs;
    // A reading taken in this segment was taken before the next began (the seqlock's order); integer division can
    // only put it a few ns past that.
    return next && real > next.baseMonoNs ? next.baseMonoNs : real;
  }
}

/** The fake monotonic time at which a segment begins. */
function fakeStart(seg: Segment): bigint {
  return seg.baseMonoNs + driftAt(seg, seg.baseMonoNs);
}
