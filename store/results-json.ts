import type { RunResults } from '../checkers/run-results.ts';
import { defineFormat } from '../common/file-format.ts';
import { isRecord } from '../common/is-record.ts';
import { formatOf, RUN_FORMAT, RUN_FORMAT_VERSIONS } from './run-format.ts';

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
 * results.json, declared once (common/file-format.ts). Its decoder is the one reader of the file as parsed: `{}`
 * when it is not an object (the file is then broken, and the caller has said why); a file from before the format
 * number is format 0 and read as it is; one of a newer format than this code's is refused (a HarnessError, exit 254)
 * rather than misread. Any field may be missing — a crashed checker, an older fencepost — so the type is partial
 * (checkers/run-results.ts `Checked`).
 */
export const RESULTS_FORMAT = defineFormat<Partial<StoredResults>>({
  file: 'results.json',
  what: 'what the checkers decided, written last (with it, the run is over); `check` rewrites it.',
  versionField: 'format',
  current: RUN_FORMAT,
  versions: RUN_FORMAT_VERSIONS,
  fields: {
    format: 'the format number (above); first in the file',
    valid: '`true`, `false` or `"unknown"`: the verdict',
    unknownReasons: 'why the verdict is unknown although no checker found a violation, most important first',
    progress: 'what the run got done: committed writes, writers, acquire outcomes, connect failures, client exits',
    lostUpdates: 'how many committed writes were overwritten by a writer that had not read them',
    lostUpdateDetails: 'each lost update: account, the lost and overwriting ledger rows, their op indexes, faults',
    lostUpdatesByFault: 'lost updates per fault active when they happened (`no fault` for contention alone)',
    staleWritesRejected: 'writes the resource refused for a stale token',
    overlaps: 'lock overlaps seen by the clients',
    confirmedOverlaps: 'how many of `overlaps` the resource’s ledger confirms',
    overlapDetails: 'each overlap: the two holders, when, and whether confirmed',
    faults: 'fault windows from the nemesis ops: name, start/end ns, targets',
    faultHits: 'per fault: how often it fired and hit, with each shot’s evidence',
    liveness:
      'recovery after each fault, the longest stall, starved slots, what lost replies broke (`lostReplies`); null when its checker crashed',
    opCounts: 'completions by type (`ok`, `fail`, `info`), in total and per op',
    latency: 'ms from invoke to completion of ok ops, per op: count and quantiles',
    throughput: 'ok completions per second',
    durationMs: 'how long the clients ran, ms',
    checkers: 'each checker’s full result, by name',
  },
  decode: (raw, file) => {
    const format = formatOf(raw, file);
    return isRecord(raw) ? { ...(raw as Partial<RunResults>), format } : {};
  },
});

/** The one reader of a results file as parsed (RESULTS_FORMAT's decoder). */
export const decodeResults = RESULTS_FORMAT.decode;
