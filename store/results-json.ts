import type { RunResults } from '../checkers/run-results.ts';
import { isRecord } from '../common/is-record.ts';
import { formatOf, RUN_FORMAT } from './run-format.ts';

/** The results as a run writes them: what the checkers decided, stamped with the format (store/run-format.ts). */
export type StoredResults = RunResults & { format: number };

/**
 * The results in their file's shape: the checkers' verdict with this code's format number, first in the file (a
 * `format` the value carries — results read back from an older file — is overwritten: they are written anew).
 */
export function encodeResults(results: RunResults): StoredResults {
  return Object.assign({ format: RUN_FORMAT }, results, { format: RUN_FORMAT });
}

/**
 * The one reader of a results file as parsed: `{}` when it is not an object (the file is then broken, and the caller
 * has said why); a file from before the format number is format 0 and read as it is; one of a newer format than
 * this code's is refused (a HarnessError, exit 254) rather than misread. Any field may be missing — a crashed
 * checker, an older fencepost — so the type is partial (checkers/run-results.ts `Checked`).
 */
export function decodeResults(raw: unknown, file: string): Partial<StoredResults> {
  const format = formatOf(raw, file);
  return isRecord(raw) ? { ...(raw as Partial<RunResults>), format } : {};
}
