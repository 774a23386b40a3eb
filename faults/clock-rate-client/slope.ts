/** A client's clock readings as `readClock` (nemesis/nemesis.ts ClockReading) gives them. */
export interface ClockReading {
  readonly wallMs: number;
  readonly monoNs: bigint;
  /** When, on the harness's monotonic clock (ms), the question left and the answer came. */
  readonly askedAtMs: number;
  readonly answeredAtMs: number;
}

/** How fast a client's clocks ran between two of its readings, per ms of the harness's monotonic clock. */
export interface ClockSlopes {
  monoSlope: number;
  wallSlope: number;
  /** The harness time between the two readings, ms. */
  probeMs: number;
}

/**
 * The slopes of a client's monotonic and wall clocks from two readings (`readClock`). Each reading is placed at the
 * middle of its round trip on the harness's clock: the client read its clocks somewhere inside it, so the error of
 * each end is at most half a round trip (well under 1 % of a probe ≥ 300 ms long, on one host). Null when there are
 * not two readings in order to measure by.
 */
export function clockSlopes(a: ClockReading | null, b: ClockReading | null): ClockSlopes | null {
  if (!a || !b) return null;
  const probeMs = mid(b) - mid(a);
  if (!(probeMs > 0)) return null;
  return {
    monoSlope: round4(Number(b.monoNs - a.monoNs) / 1e6 / probeMs),
    wallSlope: round4((b.wallMs - a.wallMs) / probeMs),
    probeMs: Math.round(probeMs),
  };
}

const mid = (r: ClockReading) => (r.askedAtMs + r.answeredAtMs) / 2;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
