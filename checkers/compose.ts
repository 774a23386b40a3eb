import type { Checked, CheckerResult, Valid } from './run-results.ts';

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
export function runChecker<R extends CheckerResult>(check: () => R): Checked<R> {
  try {
    return check();
  } catch (e) {
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // Every field of a Checked<R> but the verdict is optional: the crashed result is one (TS cannot see it for any R).
    return { valid: 'unknown', error } as Checked<R>;
  }
}

/** The merged verdict of named checker results, counting only the ones named in `deciding`. */
export function composeVerdict(
  results: Readonly<Record<string, { valid: Valid } | undefined>>,
  deciding: readonly string[],
): Valid {
  return mergeValid(deciding.map((name) => results[name]?.valid ?? 'unknown'));
}
