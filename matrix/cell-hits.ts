import type { RunResults } from '../checkers/run-results.ts';

/**
 * How often `fault` hit in a run (a paused client was inside its critical section, a struck node held the key),
 * as results.json's `faultHits` records it (checkers/fault-hits.ts computes it from the history). Undefined when
 * the run has no count for it — a run recorded before the counts existed, or a fault that does not aim at the
 * lock (its `hit` is null: there is nothing for it to hit). The matrix's one reader of that count.
 */
export function faultHits(results: RunResults, fault: string): number | undefined {
  const hit = (results.faultHits as RunResults['faultHits'] | undefined)?.[fault]?.hit;
  return typeof hit === 'number' ? hit : undefined;
}
