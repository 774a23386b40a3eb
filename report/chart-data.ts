import { movesClocks } from '../faults/catalogue.ts';
import type { FaultWindow } from '../history/fault-windows.ts';
import type { RunIndex } from './op-pairs.ts';

/**
 * Series for the uPlot charts, x in seconds since the start of the run. Latency is drawn point by point while
 * there are few enough points for that to be readable (and small); past MAX_POINTS it is aggregated into
 * buckets, drawing each bucket's p50 and max, and the page says so.
 */
export const MAX_POINTS = 8000;

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface XY {
  x: number[];
  series: Series[];
}

export interface LatencyData extends XY {
  mode: 'points' | 'buckets';
  bucketMs: number;
}

export interface ThroughputData extends XY {
  bucketMs: number;
}

export interface ClockData extends XY {
  /** Offsets come from the nemesis's own parameters, not from measuring the nodes' clocks. */
  notes: string[];
}

const NICE = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
  600_000,
];
export function niceBucket(ms: number): number {
  return NICE.find((n) => n >= ms) ?? Math.ceil(ms / 600_000) * 600_000;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const LATENCY_FS = ['acquire', 'write'] as const;

export function latencyData(index: RunIndex): LatencyData {
  const points = LATENCY_FS.map((f) =>
    index.pairs
      .filter((p) => p.f === f && p.outcome === 'ok' && p.endMs !== null)
      .map((p) => [p.startMs, Math.max(0.001, p.endMs! - p.startMs)] as const),
  );
  const total = points.reduce((s, p) => s + p.length, 0);
  if (total <= MAX_POINTS) {
    const merged = points.flatMap((ps, k) => ps.map(([t, v]) => ({ t, v, k }))).sort((a, b) => a.t - b.t);
    return {
      mode: 'points',
      bucketMs: 0,
      x: merged.map((m) => r3(m.t / 1000)),
      series: LATENCY_FS.map((f, k) => ({
        label: `${f} (ms)`,
        values: merged.map((m) => (m.k === k ? r3(m.v) : null)),
      })),
    };
  }
  const bucketMs = niceBucket(index.endMs / 300);
  const n = Math.max(1, Math.ceil(index.endMs / bucketMs));
  const x = Array.from({ length: n }, (_, i) => r3(((i + 0.5) * bucketMs) / 1000));
  const series: Series[] = [];
  points.forEach((ps, k) => {
    const buckets: number[][] = Array.from({ length: n }, () => []);
    for (const [t, v] of ps) buckets[Math.min(n - 1, Math.floor(t / bucketMs))].push(v);
    for (const b of buckets) b.sort((a, c) => a - c);
    series.push({
      label: `${LATENCY_FS[k]} p50 (ms)`,
      values: buckets.map((b) => (b.length ? r3(quantile(b, 0.5)!) : null)),
    });
    series.push({
      label: `${LATENCY_FS[k]} max (ms)`,
      values: buckets.map((b) => (b.length ? r3(b[b.length - 1]) : null)),
    });
  });
  return { mode: 'buckets', bucketMs, x, series };
}

export function throughputData(index: RunIndex): ThroughputData {
  const bucketMs = niceBucket(Math.max(100, index.endMs / 150));
  const n = Math.max(1, Math.ceil(index.endMs / bucketMs));
  const counts = {
    ok: new Array<number>(n).fill(0),
    fail: new Array<number>(n).fill(0),
    info: new Array<number>(n).fill(0),
  };
  for (const p of index.pairs) {
    if (typeof p.process !== 'number' || p.endMs === null || p.outcome === 'open') continue;
    counts[p.outcome][Math.min(n - 1, Math.floor(p.endMs / bucketMs))]++;
  }
  const perS = (c: number) => r3((c * 1000) / bucketMs);
  return {
    bucketMs,
    x: Array.from({ length: n }, (_, i) => r3((i * bucketMs) / 1000)),
    series: [
      { label: 'ok/s', values: counts.ok.map(perS) },
      { label: 'fail/s', values: counts.fail.map(perS) },
      { label: 'info/s', values: counts.info.map(perS) },
    ],
  };
}

/**
 * A target's offset: `params.offsets[target]` (what the clock faults record), else `params.offsetMs` as one
 * number for every target, a list in target order, or a map by target name.
 */
function offsetFor(params: Record<string, unknown> | undefined, target: string, i: number): number | null {
  const byName = params?.offsets;
  if (byName && typeof byName === 'object' && typeof (byName as Record<string, unknown>)[target] === 'number')
    return (byName as Record<string, number>)[target];
  const o = params?.offsetMs;
  if (typeof o === 'number' && Number.isFinite(o)) return o;
  if (Array.isArray(o) && typeof o[i] === 'number') return o[i];
  if (o && typeof o === 'object' && typeof (o as Record<string, unknown>)[target] === 'number')
    return (o as Record<string, number>)[target];
  return null;
}

const MAX_STROBE_STEPS = 2000;

/** Per-target clock offset over time, as the clock faults set it; null when no clock fault ran. */
export function clockData(faults: readonly FaultWindow[], endMs: number): ClockData | null {
  const clock = faults.filter(
    (w) => movesClocks(w.f) || w.params.offsetMs !== undefined || w.params.offsets !== undefined,
  );
  if (clock.length === 0) return null;
  const notes: string[] = [];
  const changes: { t: number; target: string; offset: number }[] = [];
  for (const w of clock) {
    const end = w.endMs ?? endMs;
    w.targets.forEach((target, i) => {
      const offset = offsetFor(w.params, target, i);
      if (offset === null) {
        notes.push(`${w.f} at ${(w.startMs / 1000).toFixed(2)} s on ${target}: no offsetMs recorded, not drawn.`);
        return;
      }
      const period = w.params.periodMs;
      if (typeof period === 'number' && period > 0) {
        // A strobe (clock-strobe) records its period: it flips between the offset and none; drawn from its
        // parameters (the shim's file is not sampled).
        let on = w.params.startsHigh !== false;
        for (let t = w.startMs, k = 0; t < end && k < MAX_STROBE_STEPS; t += period, k++, on = !on)
          changes.push({ t, target, offset: on ? offset : 0 });
      } else changes.push({ t: w.startMs, target, offset });
      changes.push({ t: end, target, offset: offsetFor(w.endParams, target, i) ?? 0 });
    });
    if (w.note) notes.push(`${w.f}: ${w.note}`);
  }
  const targets = [...new Set(changes.map((c) => c.target))];
  changes.sort((a, b) => a.t - b.t);
  const times = [...new Set([0, ...changes.map((c) => c.t), endMs])].sort((a, b) => a - b);
  const current = new Map<string, number>(targets.map((t) => [t, 0]));
  const series: Series[] = targets.map((t) => ({ label: `${t} (ms)`, values: [] }));
  let ci = 0;
  for (const t of times) {
    while (ci < changes.length && changes[ci].t <= t) {
      current.set(changes[ci].target, changes[ci].offset);
      ci++;
    }
    targets.forEach((target, k) => series[k].values.push(current.get(target)!));
  }
  return { x: times.map((t) => r3(t / 1000)), series, notes };
}
