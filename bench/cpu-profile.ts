/**
 * Where a process's CPU went, from a V8 CPU profile (what `node --cpu-prof` writes and the inspector's
 * `Profiler.stop` returns): self time per frame, busiest first. Pure: the profile in, the table out.
 */

/** The parts of a V8 `.cpuprofile` this reads (Chrome DevTools protocol, Profiler.Profile). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  /** µs, on the profiler's monotonic clock. */
  startTime: number;
  endTime: number;
  /** Node id of each sample, in order. */
  samples: number[];
  /** µs from the previous sample (the first: from startTime). */
  timeDeltas: number[];
}

export interface SelfFrame {
  /** `function file:line`, the file as its last two path parts. */
  frame: string;
  selfMs: number;
  /** Of the busy (not idle) time in the window. */
  share: number;
}

export interface ProfileSummary {
  /** Sampled time that was not `(idle)`, ms: the process's CPU as the profiler saw it. */
  busyMs: number;
  idleMs: number;
  frames: SelfFrame[];
}

/** V8's pseudo-frames: `(idle)` is the process waiting; `(program)` and `(garbage collector)` are CPU and count. */
const IDLE = '(idle)';

function frameName(f: CpuProfile['nodes'][number]['callFrame']): string {
  if (f.functionName.startsWith('(') && f.url === '') return f.functionName;
  const file = f.url.split('/').slice(-2).join('/') || '(native)';
  // Line 0 is what V8 says of code it has no line for (tsx's transformed modules): no line, rather than a wrong one.
  return `${f.functionName || '(anonymous)'} ${file}${f.lineNumber > 0 ? `:${f.lineNumber + 1}` : ''}`;
}

/**
 * Self time of each frame over the samples taken in `window` (µs on the profile's clock; all when absent), the
 * `top` busiest. A sample stands for the time until the next one (the last: until endTime), so an idle gap is
 * charged to `(idle)`, not to the frame that ran before it. Frames of the same function and line (one per call
 * path in the profile's tree) are summed.
 */
export function topSelfFrames(
  profile: CpuProfile,
  window?: { fromUs: number; toUs: number },
  top = 10,
): ProfileSummary {
  const nameOf = new Map(profile.nodes.map((n) => [n.id, frameName(n.callFrame)]));
  const self = new Map<string, number>();
  let t = profile.startTime;
  const times = profile.timeDeltas.map((d) => (t += d));
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i];
    if (window && (at < window.fromUs || at >= window.toUs)) continue;
    const until = Math.min(i + 1 < times.length ? times[i + 1] : profile.endTime, window?.toUs ?? Infinity);
    const name = nameOf.get(profile.samples[i]) ?? '(unknown)';
    self.set(name, (self.get(name) ?? 0) + Math.max(0, until - at));
  }
  const idleUs = self.get(IDLE) ?? 0;
  self.delete(IDLE);
  const busyUs = [...self.values()].reduce((a, b) => a + b, 0);
  const frames = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, selfMs: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
  return { busyMs: busyUs / 1000, idleMs: idleUs / 1000, frames };
}
