import { HarnessError } from '../common/errors.ts';
import { isRecord } from '../common/is-record.ts';

/**
 * The format of a run directory's JSON records (its test record and its results), written into each as `format`
 * so a reader knows which shape it holds instead of guessing from which fields are there (Jepsen's
 * `store/format.clj` `current-version`). Bump it when a change means an older fencepost would misread a new file;
 * an added optional field does not need it.
 *
 * Format 0: every file written before the number was (2026-12-04 and earlier): no `format` field. Still read.
 * Format 1: the same shapes, with `format`.
 */
export const RUN_FORMAT = 1;

/**
 * The format `raw` (a run's JSON record, as parsed) says it has: 0 when it says none (a run from before the number).
 * A format newer than this code's is refused rather than misread: the user's next step is a newer fencepost.
 */
export function formatOf(raw: unknown, file: string): number {
  if (!isRecord(raw) || raw.format === undefined) return 0;
  const f = raw.format;
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 0)
    throw new HarnessError('bad-arguments', `${file} has format ${JSON.stringify(f)}, which is not a format number.`, {
      hint: `the file was edited or is not a fencepost run record; re-run to get a fresh one`,
    });
  if (f > RUN_FORMAT)
    throw new HarnessError(
      'bad-arguments',
      `${file} has format ${f}, newer than this fencepost reads (up to ${RUN_FORMAT}): it was written by a newer fencepost.`,
      { hint: 'read it with the fencepost that wrote it, or update this one (git pull && npm ci)' },
    );
  return f;
}
