import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { Quantiles, RunResults } from './run-results.ts';

type Stats = Pick<RunResults, 'opCounts' | 'latency' | 'throughput' | 'durationMs'>;

const TIMED = ['acquire', 'read', 'write', 'release'] as const;

/**
 * Counts and timings of a run's operations (clients' and the harness's; nemesis records are fault markers, not
 * operations). An invocation that never completed counts as `info`: its outcome is unknown, as in Jepsen.
 */
export function opStats(input: History | readonly Op[]): Stats {
  const h = History.of(input);
  const history = h.ops;
  const byF: Record<string, { ok: number; fail: number; info: number }> = {};
  const counts = { ok: 0, fail: 0, info: 0 };
  const latencies: Record<(typeof TIMED)[number], number[]> = { acquire: [], read: [], write: [], release: [] };
  let clientOks = 0;

  const outcome = (f: string, type: 'ok' | 'fail' | 'info'): void => {
    counts[type]++;
    const entry = (byF[f] ??= { ok: 0, fail: 0, info: 0 });
    entry[type]++;
  };
  for (const op of history) {
    if (op.type === 'invoke') continue;
    const invoke = h.invokeOf(op);
    if (!invoke) continue;
    outcome(invoke.f, op.type);
    if (op.type !== 'ok') continue;
    if (typeof op.process === 'number') clientOks++;
    if ((TIMED as readonly string[]).includes(invoke.f)) {
      latencies[invoke.f as (typeof TIMED)[number]].push((op.time - invoke.time) / 1e6);
    }
  }
  for (const invoke of h.openInvokes) outcome(invoke.f, 'info');

  let first = Infinity;
  let last = -Infinity;
  for (const op of history) {
    if (op.time < first) first = op.time;
    if (op.time > last) last = op.time;
  }
  const durationMs = history.length > 0 ? (last - first) / 1e6 : 0;
  return {
    opCounts: { total: counts.ok + counts.fail + counts.info, ...counts, byF },
    latency: {
      acquire: quantiles(latencies.acquire),
      read: quantiles(latencies.read),
      write: quantiles(latencies.write),
      release: quantiles(latencies.release),
    },
    throughput: durationMs > 0 ? clientOks / (durationMs / 1000) : 0,
    durationMs,
  };
}

/** Nearest-rank quantiles; all zero when there is nothing to measure (count says so). */
export function quantiles(xs: number[]): Quantiles {
  if (xs.length === 0) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(xs).sort();
  const at = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
}
