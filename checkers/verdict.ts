import { EXIT, type ExitCode } from '../common/exit-codes.ts';
import type { Valid } from './run-results.ts';

/**
 * The one spelling of a three-valued verdict, wherever it is shown or returned: its word (console, pages, the
 * matrix, the benchmarks), its CSS class (the pages' colours: good / bad / unknown) and its exit code (Jepsen's
 * 0 / 1 / 2). Anything that is not `true` or `false` reads as unknown: a missing or damaged result earns nothing.
 */
export type VerdictWord = 'VALID' | 'INVALID' | 'UNKNOWN';

/** A run of the matrix or a benchmark that ended in an error instead of a verdict. */
export type RunVerdict = VerdictWord | 'FAILED';

export type VerdictClass = 'good' | 'bad' | 'unknown';

export function verdictWord(valid: unknown): VerdictWord {
  return valid === true ? 'VALID' : valid === false ? 'INVALID' : 'UNKNOWN';
}

export function verdictClass(valid: unknown): VerdictClass {
  return valid === true ? 'good' : valid === false ? 'bad' : 'unknown';
}

export function verdictExitCode(valid: Valid): ExitCode {
  return valid === true ? EXIT.valid : valid === false ? EXIT.invalid : EXIT.unknown;
}

/** How one checker's result reads beside the run's verdict: 'n/a' when it did not look (it does not apply to the run). */
export type CheckerWord = VerdictWord | 'n/a';

/** How a checker's `note` starts when it did not look at the run (checkers/check-run.ts writes them). */
export const NOT_APPLICABLE = 'not applicable: ';

function notApplicable(r: { note?: unknown }): boolean {
  return typeof r.note === 'string' && r.note.startsWith(NOT_APPLICABLE);
}

/**
 * A checker's word: n/a when its note says it does not apply (no token to order, an unfenced run, a strategy that
 * takes no lock), else its verdict's. A green VALID about nothing read as "fencing worked" in runs without fencing.
 */
export function checkerWord(r: { valid: unknown; note?: unknown }): CheckerWord {
  return notApplicable(r) ? 'n/a' : verdictWord(r.valid);
}

/** Its colour: grey for n/a and for a checker that does not decide the verdict (`decides: false`), else the verdict's. */
export function checkerClass(r: { valid: unknown; note?: unknown; decides?: unknown }): VerdictClass | 'neutral' {
  return notApplicable(r) || r.decides === false ? 'neutral' : verdictClass(r.valid);
}
