import { fmtSpan, type LivenessResult } from '../../checkers/liveness.ts';
import type { LostRepliesResult } from '../../checkers/lost-replies/check-lost-replies.ts';
import type { Finding, StoryInput } from './finding.ts';

/**
 * The liveness card: how long the lock was unavailable after each fault, the stalls, how long a paused or killed
 * holder kept the others out, each client's share of the writes and acquire latency in and out of faults — the
 * liveness checker's measurements as sentences, then what lost replies broke (checkers/lost-replies/: each
 * orphaned lock's span against the TTL, a release that never released, one that freed another's lock, double
 * ownership). A note, unless the run set `--max-stall` and a stall broke it.
 */
export function livenessFinding(input: StoryInput): Finding | null {
  const l = input.results.checkers?.liveness as Partial<LivenessResult> | undefined;
  if (!l || !Array.isArray(l.stalls) || !Array.isArray(l.recoveries)) return null;
  const sentences: string[] = [];
  const rec = l.recoveryMs;
  if (rec)
    sentences.push(
      `After each fault ended, the next acquire took ${fmtSpan(rec.median)} (median) and at most ${fmtSpan(rec.max)}${rec.unrecovered ? `; after ${rec.unrecovered} fault${rec.unrecovered > 1 ? 's' : ''} no client acquired again before the run ended` : ''}.`,
    );
  const lostReplies = input.results.checkers?.['lost-replies'] as Partial<LostRepliesResult> | undefined;
  sentences.push(
    ...[...(l.findings ?? []), ...(lostReplies?.findings ?? [])].map((f) => `${f[0].toUpperCase()}${f.slice(1)}.`),
  );
  if (l.stalls.length === 0)
    sentences.push(
      `No stall: clients never waited on a free lock for longer than the TTL${l.ttlMs ? ` (${fmtSpan(l.ttlMs)})` : ''}.`,
    );
  const lat = l.acquireLatency;
  if (lat && lat.duringFaults.count > 0)
    sentences.push(
      `Acquire latency during faults p50 ${fmtSpan(lat.duringFaults.p50)}, max ${fmtSpan(lat.duringFaults.max)} (${lat.duringFaults.count}); outside them p50 ${fmtSpan(lat.outsideFaults.p50)}, max ${fmtSpan(lat.outsideFaults.max)} (${lat.outsideFaults.count}).`,
    );
  if (l.shares && l.shares.length > 1)
    sentences.push(
      `Committed writes per client slot: ${l.shares.map((s) => `${s.slot}: ${s.writes} (${Math.round(s.share * 100)} %)`).join(', ')}.`,
    );
  if (l.maxStallMs !== null && l.maxStallMs !== undefined)
    sentences.push(
      l.valid === false
        ? `The run set --max-stall=${l.maxStallMs}: the liveness checker failed (a liveness finding, not a lost update).`
        : `The run set --max-stall=${l.maxStallMs}: every stall stayed within it.`,
    );
  const longest = [...l.stalls].sort((a, b) => b.durationMs - a.durationMs)[0];
  const orphans = Array.isArray(lostReplies?.orphans) ? lostReplies.orphans : [];
  const orphaned = orphans.length
    ? `; orphaned lock up to ${fmtSpan(Math.max(...orphans.map((o) => o.durationMs)))}`
    : '';
  const worst = rec ? Math.max(rec.max, l.longestStallMs ?? 0) : (l.longestStallMs ?? 0);
  return {
    id: 'liveness',
    kind: 'liveness',
    severity: l.valid === false ? 'bad' : 'note',
    title:
      (l.stalls.length > 0 || rec
        ? `Liveness: ${rec ? `unavailable up to ${fmtSpan(worst)} after a fault` : 'no fault ended'}; ${l.stalls.length ? `longest stall ${fmtSpan(l.longestStallMs ?? 0)}` : 'no stall'}${l.ttlMs ? ` (TTL ${fmtSpan(l.ttlMs)})` : ''}`
        : 'Liveness: no fault, no stall') + orphaned,
    sentences,
    fromMs: longest ? Math.max(0, longest.fromMs - 500) : 0,
    toMs: longest ? longest.toMs + 500 : input.index.endMs,
    ops: [],
  };
}
