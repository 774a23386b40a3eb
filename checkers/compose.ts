import type { CheckerResult, Valid } from './run-results.ts';

/** Jepsen's merge: any false makes it false; otherwise any unknown makes it unknown; else true. */
export function mergeValid(verdicts: Iterable<Valid>): Valid {
  let merged: Valid = true;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === 'unknown') merged = 'unknown';
  }
  return merged;
}

/**
 * Runs one checker so that its crash cannot crash the others: a checker that throws has no verdict, so it
 * reports `unknown` with the error instead of taking the run's results down with it.
 */
export function runChecker(check: () => CheckerResult): CheckerResult {
  try {
    return check();
  } catch (e) {
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { valid: 'unknown', error };
  }
}

/** The merged verdict of named checker results, counting only the ones named in `deciding`. */
export function composeVerdict(results: Record<string, CheckerResult>, deciding: readonly string[]): Valid {
  return mergeValid(deciding.map((name) => results[name]?.valid ?? 'unknown'));
}
