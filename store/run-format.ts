import { versionOf } from '../common/file-format.ts';

/**
 * The format of a run directory's JSON records (its test record and its results), written into each as `format`
 * so a reader knows which shape it holds instead of guessing from which fields are there (Jepsen's
 * `store/format.clj` `current-version`). Bump it when a change means an older fencepost would misread a new file;
 * an added optional field does not need it. Each record declares it once (common/file-format.ts): test-json.ts,
 * results-json.ts.
 */
export const RUN_FORMAT = 1;

/** What each format changed, oldest first: the version rule as the docs show it. */
export const RUN_FORMAT_VERSIONS = [
  {
    version: 0,
    what: 'every file written before the number was (2026-12-04 and earlier): no `format` field, still read',
  },
  { version: 1, what: 'the same shapes, with `format`' },
] as const;

/**
 * The format `raw` (a run's JSON record, as parsed) says it has: 0 when it says none (a run from before the number).
 * A format newer than this code's is refused rather than misread: the user's next step is a newer fencepost.
 */
export function formatOf(raw: unknown, file: string): number {
  return versionOf({ versionField: 'format', current: RUN_FORMAT }, raw, file);
}
