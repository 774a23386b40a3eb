import type { RunResults } from '../checkers/run-results.ts';

/**
 * How often `fault` hit in a run, as its results' `faultHits` records it (checkers/fault-hits.ts computes it
 * from the history), for any fault: 0 when it never fired (no entry, or `fired: 0`) or never hit (`hit: 0`).
 * Undefined only when the run cannot say: a run recorded before the counts existed (no `faultHits` at all), or an
 * older run's fault that fired but had no hit rule (`hit: null`) — that is not held against the run. The
 * matrix's one reader of that count.
 */
export function faultHits(results: Partial<RunResults>, fault: string): number | undefined {
  const all = results.faultHits;
  if (!all || typeof all !== 'object') return undefined;
  const count = all[fault];
  if (!count || count.fired === 0) return 0;
  return typeof count.hit === 'number' ? count.hit : undefined;
}
