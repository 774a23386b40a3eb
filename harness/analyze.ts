import fs from 'node:fs';
import { checkOptionsFor, checkRun } from '../checkers/check-run.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { withReasons } from '../checkers/unknown-reasons.ts';
import { isRecord } from '../common/is-record.ts';
import { History } from '../history/history.ts';
import { validateHistory } from '../history/reader.ts';
import { inTimeOrder } from '../history/time-order.ts';
import { readRunHistory, readTestRaw, RUN_FILES, runPath, writeResults } from '../store/run-dir.ts';

export interface AnalyzeOptions {
  /** Budget for the linearizability search (checkRun's default when absent). */
  deadlineMs?: number;
  /** Where a warning goes (a cut-short last line, a broken journal invariant, an unreadable test record). */
  warn?: (line: string) => void;
}

export type Analysis =
  | {
      ok: true;
      results: RunResults;
      /** The run was held to the fencing promises (its record says so). */ fencing: boolean;
      /** The lock and the faults its record names, for the "what to do" line; null without a readable record. */
      run: { lock: string; faults: readonly string[] } | null;
    }
  /** The run dir holds nothing to check (no history, an unreadable or empty one): bad input, nothing written. */
  | { ok: false; problem: string };

/**
 * Checks the run stored in `runDir` and writes its results: Jepsen's `analyze!`, the one path by which a fresh run
 * (harness/run.ts, once its history is sealed) and `check <run-dir>` (a stored one, re-checked) are judged alike.
 * I/O around the pure `checkRun`: read the history strictly and in time order (a crash can leave it unsorted),
 * read the test record for the run's rules (`checkOptionsFor`), check, write the results.
 */
export function analyze(runDir: string, opts: AnalyzeOptions = {}): Analysis {
  const warn = opts.warn ?? (() => {});
  const read = readHistoryForCheck(runDir, warn);
  if (typeof read === 'string') return { ok: false, problem: read };
  const test = readTestForCheck(runDir, warn);
  const options = checkOptionsFor(typeof test === 'string' ? {} : test);
  const checked = checkRun(read, {
    ...options,
    ...(opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs } : {}),
  });
  // Without the run's own record the check cannot hold it to its rules: a counterexample still stands, a VALID
  // cannot be earned.
  const results =
    typeof test === 'string'
      ? { ...checked, unknownReasons: [test, ...checked.unknownReasons], valid: withReasons(checked.valid, [test]) }
      : checked;
  writeResults(runDir, results);
  return { ok: true, results, fencing: options.fencing, run: runOf(test, results) };
}

/** The lock and the faults a raw test record names, for the "what to do" line; null when it names no lock. */
function runOf(test: unknown, results: RunResults): { lock: string; faults: readonly string[] } | null {
  if (!isRecord(test) || typeof test.lock !== 'string') return null;
  const faults = Array.isArray(test.faults) ? test.faults.map(String) : Object.keys(results.faultHits ?? {});
  return { lock: test.lock, faults };
}

/** The history as checkers need it, or why there is none to check. Broken invariants are warned about, not fatal. */
function readHistoryForCheck(runDir: string, warn: (line: string) => void): History | string {
  const file = runPath(runDir, 'history');
  if (!fs.existsSync(file))
    return `${file} does not exist; a run directory holds ${RUN_FILES.history}, ${RUN_FILES.test} and ${RUN_FILES.results}`;
  let read;
  try {
    read = readRunHistory(runDir); // in chunks: a long run's history outgrows one string
  } catch (e) {
    return `${file}: ${(e as Error).message}`;
  }
  const { ops } = read.history;
  if (read.truncatedTail) warn(`the last line of ${file} was cut short (crash mid-write?) and was ignored`);
  const problems = validateHistory(ops);
  if (problems.length > 0) {
    const shown = problems
      .slice(0, 5)
      .map((p) => `  op ${p.index}: ${p.problem}`)
      .join('\n');
    warn(
      `${file} breaks ${problems.length} journal invariant(s); checkers that cannot cope will say unknown:\n${shown}`,
    );
  }
  if (ops.length === 0) return `${file} holds no operations; there is nothing to check (did the run start?)`;
  // A run that ended normally sealed its history in time order; one a crash cut short is ordered here.
  const ordered = inTimeOrder(ops);
  return ordered.every((op, i) => op === ops[i]) ? read.history : History.of(ordered);
}

/**
 * The run's test record, or why it cannot be read: without it the check does not know the run's faults (which had
 * to hit), its clients (a VALID needs two writers) or its fencing, so the reason becomes the verdict's first.
 */
function readTestForCheck(
  runDir: string,
  warn: (line: string) => void,
): Parameters<typeof checkOptionsFor>[0] | string {
  const problems: string[] = [];
  const test = readTestRaw(runDir, problems);
  const file = runPath(runDir, 'test');
  const why = problems.length
    ? problems.join('; ')
    : !isRecord(test)
      ? `${file} is not a JSON object`
      : !isRecord(test.config)
        ? `${file} has no "config" object`
        : undefined;
  if (why === undefined) return test as Parameters<typeof checkOptionsFor>[0];
  const reason = `${RUN_FILES.test} unreadable (${why}): the check cannot tell which faults had to hit, how many clients ran or whether the run was fenced, so it cannot earn a VALID`;
  warn(reason);
  return reason;
}
