import type { Progress } from '../checkers/progress.ts';
import type { RunResults, Valid } from '../checkers/run-results.ts';
import type { CellRun, Observation } from './matrix-cell.ts';
import type { Expectation } from '../locks/oracle-cell.ts';
import { faultFacts } from '../faults/catalogue.ts';

/** What the matrix reads from one finished run. */
export interface RunEvidence {
  valid: Valid;
  lostUpdates: number;
  staleWritesRejected: number;
  fencing: boolean;
  /** The cell's fault, or null for the no-fault column. */
  fault: string | null;
  /**
   * How often that fault hit (0 also when it never fired); undefined = the run's results do not say (an old run), and
   * then a clean run is not held against it.
   */
  faultHits: number | undefined;
  /** Checkers whose verdict was false. */
  failing: string[];
  /** Why the verdict was unknown (unknownWhy), shown on the cell when its runs stay unknown. */
  unknownWhy?: string;
  /** Set when one client committed every write and the others none (starvation), in words; see `starvation`. */
  starvation?: string;
}

/**
 * Why a run's verdict was unknown, in the matrix's words: starvation — one client committing every write while
 * the others committed none — is named as such, with which client wrote how much (it is a finding about the lock,
 * not a harness hiccup); otherwise the run's own first reason.
 */
export function unknownWhy(
  r: Pick<RunResults, 'unknownReasons'> & { progress?: Pick<Progress, 'committedWrites' | 'writers'> },
  concurrency: number,
): string | undefined {
  return starvation(r, concurrency) ?? r.unknownReasons?.[0];
}

/** Starvation in words — one client committed every write while the others committed none — or undefined. */
export function starvation(
  r: { progress?: Pick<Progress, 'committedWrites' | 'writers'> },
  concurrency: number,
): string | undefined {
  const p = r.progress;
  if (p && concurrency >= 2 && p.writers.length === 1 && p.committedWrites > 0)
    return `starvation: client ${p.writers[0]} committed all ${p.committedWrites} writes, the other ${concurrency - 1} client(s) none`;
  return undefined;
}

/**
 * One run in the oracle's terms, and whether it can decide its cell. The rule does not look at the oracle, and it
 * is asymmetric: a lost update or an INVALID verdict is a counterexample whatever else happened in the run — the
 * lock broke, whether or not the aimed fault landed — so it always counts against "safe". The fault's hits only
 * decide whether a *clean* run is evidence of safety: a clean run whose fault never hit tells nothing about that
 * fault, one whose verdict is unknown tells nothing at all, and a fenced one that never refused a stale write did
 * not test the fence.
 */
export function judgeRun(e: RunEvidence): Pick<CellRun, 'seen' | 'conclusive' | 'why'> {
  const seen: CellRun['seen'] =
    e.lostUpdates > 0 ? 'lost' : e.valid === false ? 'invalid' : e.valid === 'unknown' ? 'unknown' : 'safe';
  // For a fault that tells a story, a hit is a story that completed (faults/judging/story.ts).
  const missed =
    e.fault !== null && e.faultHits === 0
      ? faultFacts(e.fault)?.story
        ? `no ${e.fault} story completed`
        : `${e.fault} never hit`
      : undefined;
  if (seen === 'lost' || seen === 'invalid') {
    const why = [
      seen === 'invalid' ? `INVALID by ${e.failing.join(', ') || 'a checker'} without a lost update` : undefined,
      missed ? `${missed}, but a counterexample counts all the same` : undefined,
    ].filter(Boolean);
    return { seen, conclusive: true, ...(why.length ? { why: why.join('; ') } : {}) };
  }
  // Starvation is a finding about the lock's liveness, not evidence of safety: inconclusive for "safe" (the run is
  // replaced like any unknown one), and a cell whose every run starved shows it (cellObservation).
  if (seen === 'unknown' && e.starvation)
    return {
      seen: 'starved',
      conclusive: false,
      why: `the verdict was unknown (${e.starvation})${missed ? `; ${missed}` : ''}`,
    };
  if (seen === 'unknown' && e.unknownWhy)
    return { seen, conclusive: false, why: `the verdict was unknown (${e.unknownWhy})${missed ? `; ${missed}` : ''}` };
  if (seen === 'unknown')
    return { seen, conclusive: false, why: `the verdict was unknown${missed ? `; ${missed}` : ''}` };
  if (missed) return { seen, conclusive: false, why: missed };
  if (e.fencing && e.staleWritesRejected === 0)
    return { seen, conclusive: false, why: 'no stale write was refused: the fence was not exercised' };
  return { seen, conclusive: true };
}

/**
 * Whether a measured cell runs again: every cell gets `wanted` runs, and each inconclusive one is replaced by
 * another (the next seed) until `wanted` runs are conclusive or `maxReruns` extra runs were spent. A run the
 * harness failed ends the cell: that is a bug to look at, not a measurement to repeat.
 */
export function needsAnotherRun(runs: readonly CellRun[], wanted: number, maxReruns: number): boolean {
  if (runs.some((r) => r.seen === 'failed')) return false;
  if (runs.length < wanted) return true;
  return runs.filter((r) => r.conclusive).length < wanted && runs.length < wanted + maxReruns;
}

/**
 * What a measured cell's runs showed together. A lost update in any run is a counterexample (judgeRun makes every
 * one conclusive), so it settles "lost"; "safe" needs `wanted` conclusive runs without one; a cell whose every run
 * starved (one client wrote everything) is "starved"; anything else less is "unknown".
 */
export function cellObservation(runs: readonly CellRun[], wanted: number): Observation {
  if (runs.some((r) => r.seen === 'failed')) return 'failed';
  const conclusive = runs.filter((r) => r.conclusive);
  if (conclusive.some((r) => r.seen === 'lost')) return 'lost';
  if (conclusive.some((r) => r.seen === 'invalid')) return 'invalid';
  if (conclusive.length >= wanted) return 'safe';
  return runs.length > 0 && runs.every((r) => r.seen === 'starved') ? 'starved' : 'unknown';
}

/**
 * Whether an observation is what the oracle expects. The oracle's "lost" column says the lock breaks under the
 * fault; an INVALID verdict without a lost update (an overlap the resource saw) is that break shown by another
 * checker, so it matches "lost" — and contradicts "safe".
 */
export function matches(expect: Expectation, seen: Observation): boolean {
  if (expect === 'lost') return seen === 'lost' || seen === 'invalid';
  if (expect === 'safe') return seen === 'safe';
  if (expect === 'safe-may-starve') return seen === 'safe' || seen === 'starved';
  if (expect === 'may-lose') return seen === 'lost' || seen === 'invalid' || seen === 'safe';
  if (expect === 'refuse') return seen === 'refuse';
  return false;
}
