/** Time intervals as sets: the liveness checker's stall is the time clients waited minus the time a lock was held. */

/** A half-open interval of time, `from` to `to`. */
export interface TimeSpan {
  from: number;
  to: number;
}

/** Union of intervals, sorted and merged. */
export function union(spans: readonly TimeSpan[]): TimeSpan[] {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  const out: TimeSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else out.push({ from: s.from, to: s.to });
  }
  return out;
}

/** `a` minus the union `b` (both sorted unions). */
export function subtract(a: readonly TimeSpan[], b: readonly TimeSpan[]): TimeSpan[] {
  const out: TimeSpan[] = [];
  for (const s of a) {
    let from = s.from;
    for (const c of b) {
      if (c.to <= from || c.from >= s.to) continue;
      if (c.from > from) out.push({ from, to: c.from });
      from = Math.max(from, c.to);
      if (from >= s.to) break;
    }
    if (from < s.to) out.push({ from, to: s.to });
  }
  return out;
}
