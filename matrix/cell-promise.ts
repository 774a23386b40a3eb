import type { RunResults } from '../checkers/run-results.ts';

/**
 * "Broke its promise" beside "lost", per matrix cell: how many overlaps the promise checker (checkers/promise/)
 * blamed on the lock itself — granted inside a lease it had promised — as against a holder that outlived its lease.
 * Read from each run's results' `checkers.promise`; the matrix page and docs/findings.md say it through here.
 * Absent for a run recorded before the checker existed (or where it crashed): "not measured", never 0.
 */
export interface RunPromise {
  /** Overlaps the lock caused: its own broken promises. */
  broken: number;
  /** Overlaps the holder caused by outliving its lease (own-clock ones included): what fencing is for. */
  outlived: number;
  /** Overlaps whose fault could not be told, and why (the first reason). */
  unknown: number;
  /** False when no hold's promise was known (a lock that reports no lease, a record without one): 0 broken is no finding. */
  known: boolean;
  why?: string;
}

export interface CellPromise extends RunPromise {
  /** How many of the cell's runs these numbers come from. */
  runs: number;
}

/** One run's tally, or undefined when its results carry none (an older run, or the checker threw). */
export function runPromise(r: Partial<Pick<RunResults, 'checkers'>>): RunPromise | undefined {
  const p = r.checkers?.promise;
  if (!p?.counts) return undefined;
  const known = !(p.holds && p.unknownHolds === p.holds);
  const why = p.unknownWhy;
  return {
    broken: p.counts.broke,
    outlived: p.counts.outlived + p.counts['own-clock'],
    unknown: p.counts.unknown,
    known,
    ...(why && (!known || p.counts.unknown) ? { why } : {}),
  };
}

/** Over a cell's runs that measured it: the sums, known when any run knew its promises, and the first reason. */
export function cellPromise(runs: readonly { promise?: RunPromise }[]): CellPromise | undefined {
  const ps = runs.map((r) => r.promise).filter((p): p is RunPromise => p !== undefined);
  if (ps.length === 0) return undefined;
  const why = ps.find((p) => p.why)?.why;
  return {
    broken: ps.reduce((s, p) => s + p.broken, 0),
    outlived: ps.reduce((s, p) => s + p.outlived, 0),
    unknown: ps.reduce((s, p) => s + p.unknown, 0),
    known: ps.some((p) => p.known),
    ...(why ? { why } : {}),
    runs: ps.length,
  };
}

/**
 * The column's words: `2 broken`, `0 broken · 3 unknown (why)`, `unknown: why` when no promise was known,
 * `not measured` for a run or cell from before the checker.
 */
export function promiseText(p: RunPromise | undefined): string {
  if (!p) return 'not measured';
  if (!p.known) return `unknown: ${p.why ?? 'no hold had a known promise'}`;
  return `${p.broken} broken${p.unknown ? ` · ${p.unknown} unknown (${p.why ?? 'ambiguous'})` : ''}`;
}
