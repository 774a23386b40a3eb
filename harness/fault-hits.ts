import type { RunResults } from '../checkers/run-results.ts';

/** The per-fault counts results.json may carry: how often a fault fired and how often it hit its target. */
interface FaultCounts {
  fired?: number;
  hit?: number;
  hits?: number;
}

/**
 * How often `fault` hit in a run (a paused client was inside its critical section, a struck node held the key),
 * or undefined when results.json has no such count. The one reader of that count for the matrix: the counts
 * are being added to results.json separately, and until a run carries them the matrix says "not known" rather
 * than guessing from the fault windows.
 */
export function faultHits(results: RunResults, fault: string): number | undefined {
  const counts = (results as RunResults & { faultCounts?: Record<string, FaultCounts> }).faultCounts?.[fault];
  const hits = counts?.hit ?? counts?.hits;
  return typeof hits === 'number' ? hits : undefined;
}
