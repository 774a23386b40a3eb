import { fmtSpan } from '../checkers/liveness.ts';
import type { RunResults } from '../checkers/run-results.ts';
import type { LivenessExpectation } from '../locks/oracle-cell.ts';

/**
 * Availability beside safety, per matrix cell: how long the lock took to come back after the cell's fault (fault
 * end → next acquire; median and max over its runs) and the longest stall (clients waiting, nobody holding, past
 * the TTL). Read from each run's results' `liveness` (checkers/liveness.ts); the matrix page, the nightly
 * summary and the nightly comparison all say it through here.
 */
export interface RunLiveness {
  recoveryMedianMs: number | null;
  recoveryMaxMs: number | null;
  /** Faults after whose end no client acquired before the run ended. */
  unrecovered: number;
  longestStallMs: number;
}

export interface CellLiveness extends RunLiveness {
  /** How many of the cell's runs these numbers come from. */
  runs: number;
}

/** One run's numbers, or undefined when it has none (its liveness checker crashed: `liveness: null`). */
export function runLiveness(r: Pick<RunResults, 'liveness'>): RunLiveness | undefined {
  const l = r.liveness;
  if (!l) return undefined;
  return {
    recoveryMedianMs: l.recoveryMs ? round(l.recoveryMs.median) : null,
    recoveryMaxMs: l.recoveryMs ? round(l.recoveryMs.max) : null,
    unrecovered: l.recoveryMs?.unrecovered ?? 0,
    longestStallMs: round(l.longestStallMs),
  };
}

/** Over a cell's runs: the median of their medians, the max of their maxima, the longest of their stalls. */
export function cellLiveness(runs: readonly { liveness?: RunLiveness }[]): CellLiveness | undefined {
  const ls = runs.map((r) => r.liveness).filter((l): l is RunLiveness => l !== undefined);
  if (ls.length === 0) return undefined;
  const medians = ls
    .map((l) => l.recoveryMedianMs)
    .filter((m): m is number => m !== null)
    .sort((a, b) => a - b);
  const maxes = ls.map((l) => l.recoveryMaxMs).filter((m): m is number => m !== null);
  return {
    recoveryMedianMs: medians.length ? medians[Math.floor((medians.length - 1) / 2)] : null,
    recoveryMaxMs: maxes.length ? Math.max(...maxes) : null,
    unrecovered: ls.reduce((s, l) => s + l.unrecovered, 0),
    longestStallMs: Math.max(...ls.map((l) => l.longestStallMs)),
    runs: ls.length,
  };
}

/** "unavailable up to 7.4 s after each fault (median 1.2 s); longest stall 3.1 s" — what a cell says beside "safe". */
export function availabilityText(l: RunLiveness | undefined): string {
  if (!l) return '';
  const parts: string[] = [];
  if (l.recoveryMaxMs !== null)
    parts.push(
      `unavailable up to ${fmtSpan(l.recoveryMaxMs)} after each fault (median ${fmtSpan(l.recoveryMedianMs ?? 0)})`,
    );
  if (l.unrecovered > 0) parts.push(`${l.unrecovered} fault${l.unrecovered > 1 ? 's' : ''} never recovered from`);
  parts.push(l.longestStallMs > 0 ? `longest stall ${fmtSpan(l.longestStallMs)}` : 'no stall');
  return parts.join('; ');
}

/**
 * What a cell's liveness shows in the oracle's terms: `livelock` when a run had a stall (the lock free, clients
 * waiting, nobody holding, longer than the TTL — the checker's definition; one lasting to the run's end included),
 * `recovers` when none did; undefined when no run measured it. A fault never recovered from is not counted by itself:
 * one that ends in the run's last second is unrecovered because the clients stopped, and a real one stalls too.
 */
export function livenessSeen(l: RunLiveness | undefined): 'livelock' | 'recovers' | undefined {
  if (!l) return undefined;
  return l.longestStallMs > 0 ? 'livelock' : 'recovers';
}

/**
 * Whether a cell's liveness is what its oracle cell expects: `recovers` only when measured and no run stalled;
 * `stalls` only when measured and every run stalled; `may-livelock` either way; a cell without a liveness
 * expectation always is.
 */
export function livenessMatches(
  expect: LivenessExpectation | undefined,
  l: RunLiveness | undefined,
  runs: readonly (RunLiveness | undefined)[] = [l],
): boolean {
  if (expect === undefined || expect.expect === 'may-livelock') return true;
  if (expect.expect === 'stalls') return runs.length > 0 && runs.every((r) => livenessSeen(r) === 'livelock');
  return livenessSeen(l) === 'recovers';
}

/**
 * The nightly comparison's threshold for a liveness change: a number flags when it moved by more than
 * LIVENESS_CHANGE_RATIO (either way) and by more than LIVENESS_CHANGE_MIN_MS, so jitter of a few tens of ms on a
 * busy machine does not flag, and a lock that now takes twice as long to recover does.
 */
export const LIVENESS_CHANGE_RATIO = 1.5;
export const LIVENESS_CHANGE_MIN_MS = 1000;

/** What changed beyond the threshold between last night's numbers and tonight's, in words; empty when nothing did. */
export function livenessChanges(before: RunLiveness | undefined, after: RunLiveness | undefined): string[] {
  if (!before || !after) return [];
  const out: string[] = [];
  const check = (what: string, a: number | null, b: number | null) => {
    if (a === null || b === null) return;
    const diff = Math.abs(b - a);
    const ratio = Math.max(a, b) / Math.max(1, Math.min(a, b));
    if (diff > LIVENESS_CHANGE_MIN_MS && ratio > LIVENESS_CHANGE_RATIO)
      out.push(`${what} ${b > a ? 'rose' : 'fell'} ${fmtSpan(a)} → ${fmtSpan(b)}`);
  };
  check('recovery max', before.recoveryMaxMs, after.recoveryMaxMs);
  check('longest stall', before.longestStallMs, after.longestStallMs);
  if (after.unrecovered > before.unrecovered)
    out.push(`faults never recovered from ${before.unrecovered} → ${after.unrecovered}`);
  return out;
}

const round = (ms: number) => Math.round(ms);
