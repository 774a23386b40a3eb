import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { claimRun, PIDS_DIR } from '../common/run-owner.ts';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import { describeBadLines } from '../history/codec.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import { readHistory, readHistoryTolerant } from '../history/reader.ts';
import { sealInTimeOrder } from '../history/time-order.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { linkLatest, lockFolderName, resultsFolderProblem, runTimestamp } from './results-store.ts';
import { decodeResults, encodeResults, type StoredResults } from './results-json.ts';
import { decodeTestJson, normalizeTestJson, type StoredTestJson, type TestJson } from './test-json.ts';

/**
 * The one owner of a run directory's layout: `results/<lock>/<timestamp>/` holds the files below, and every reader
 * and writer of them — the run, `check <run-dir>`, the report, the index, `compare`, `serve`, the matrix, the
 * benchmarks — goes through this module (Jepsen's `jepsen.store`). A name here is the name on disk. Two more live
 * beside the code that alone touches them: the run's passwords (`SECRETS_FILE`, cluster/credentials.ts) and the
 * owner record inside `pids/` (common/run-owner.ts).
 */
export const RUN_FILES = {
  /** What the run was: its options, seed, strategy, faults, versions, nodes (store/test-json.ts). */
  test: 'test.json',
  /** Every op, one JSON line each, as it happened (history/journal.ts writes it, history/codec.ts reads it). */
  history: 'history.jsonl',
  /** What the checkers decided (checkers/run-results.ts). Written last: with it, the run is over. */
  results: 'results.json',
  /** The HTML view of the three above (report/report.ts). */
  report: 'report.html',
  /** One log file per server and client. */
  logs: 'logs',
  /** The servers' data folders while they run; removed at teardown (`cleanup --data` removes dead runs'). */
  nodes: 'nodes',
  /** Pid records and the harness's owner record (common/run-owner.ts), what `cleanup` reads. */
  pids: PIDS_DIR,
  /**
   * Each client process's invokes, written before its call starts (workloads/op-outbox.ts): what the harness
   * recovers when a client dies with an invoke it had not sent yet. A file is removed once its client's exit is recorded.
   */
  inFlight: 'in-flight',
  /** The clock shim's per-process offset files, for clock faults. */
  clock: 'clock',
  /** `doctor`'s report, in the run dir its boot check made (harness/doctor.ts). */
  doctor: 'doctor.json',
} as const;

export type RunFile = keyof typeof RUN_FILES;

/** `<runDir>/<the file's name>`. */
export function runPath(runDir: string, file: RunFile): string {
  return path.join(runDir, RUN_FILES[file]);
}

/** A log of the run: `<runDir>/logs/<name>.log` (`name` is a node or `client-<slot>`). */
export function runLogFile(runDir: string, name: string): string {
  return path.join(runDir, RUN_FILES.logs, `${name}.log`);
}

/** A client process's in-flight file: `<runDir>/in-flight/client-<slot>-<n>.jsonl`, `n` counting its slot's forks. */
export function inFlightFile(runDir: string, slot: number, fork: number): string {
  return path.join(runDir, RUN_FILES.inFlight, `client-${slot}-${fork}.jsonl`);
}

/** Whether `dir` is a run directory: it holds a test record (what `listRunDirs` and the matrix look for). */
export function isRunDir(dir: string): boolean {
  return fs.existsSync(runPath(dir, 'test'));
}

/** Whether the run's checkers have run: its results exist (a live or crashed run has none yet). */
export function hasResults(runDir: string): boolean {
  return fs.existsSync(runPath(runDir, 'results'));
}

/** A JSON file of a run, bigint-safe (a bigint is written as its decimal string), readable by its owner only. */
export function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`, {
    mode: RUN_FILE_MODE,
  });
}

/**
 * A new run directory under `resultsRoot`, with its logs folder, claimed by this process (so `cleanup` leaves it
 * alone while we live), and `latest` pointing at it.
 */
export function createRunDir(resultsRoot: string, lock: string, date = new Date()): string {
  try {
    return makeRunDir(resultsRoot, lock, date);
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    // The folder could not be made (EACCES, ENOTDIR, ENOSPC, a read-only disk): the user's to fix, not a crash.
    throw new HarnessError('run-dir', `could not make a run folder under ${resultsRoot}: ${(err as Error).message}`, {
      exitCode: EXIT.badArguments,
      hint: 'give --results a folder you can write, e.g. --results="$(mktemp -d)"',
    });
  }
}

function makeRunDir(resultsRoot: string, lock: string, date: Date): string {
  const base = path.join(path.resolve(resultsRoot), lockFolderName(lock), runTimestamp(date));
  let dir = base;
  // A lock folder made by someone else (while the results folder was open to them) is as foreign as the results.
  const lockDir = path.dirname(base);
  const problem = resultsFolderProblem(lockDir);
  if (problem)
    throw new HarnessError('run-dir', `refusing to make a run folder in ${lockDir}: ${problem}.`, {
      exitCode: EXIT.badArguments,
    });
  fs.mkdirSync(lockDir, { recursive: true });
  // Two runs in the same millisecond (a matrix on a fast machine) must not share a folder: mkdir without
  // `recursive` fails on one that exists, so the second takes the next name.
  for (let i = 1; ; i++) {
    try {
      fs.mkdirSync(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      dir = `${base}-${i}`;
    }
  }
  fs.mkdirSync(runPath(dir, 'logs'));
  // The harness owns the run from its first moment: `cleanup` leaves a run alone while this process lives.
  claimRun(runPath(dir, 'pids'));
  linkLatest(resultsRoot, dir);
  return dir;
}

/**
 * Every run dir under the results root (folders holding a test record), newest first. A folder that cannot be read
 * (another user's `lost+found`, a run folder root made 0700) is passed over, and named in `unreadable` when given.
 */
export function listRunDirs(resultsRoot: string, unreadable?: string[]): string[] {
  const root = path.resolve(resultsRoot);
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  for (const lock of fs.readdirSync(root, { withFileTypes: true })) {
    if (!lock.isDirectory() || lock.isSymbolicLink()) continue;
    let runs: fs.Dirent[];
    try {
      runs = fs.readdirSync(path.join(root, lock.name), { withFileTypes: true });
    } catch {
      unreadable?.push(path.join(root, lock.name));
      continue;
    }
    for (const run of runs) {
      const dir = path.join(root, lock.name, run.name);
      if (run.isDirectory() && isRunDir(dir)) out.push(dir);
    }
  }
  return out.sort((a, b) => path.basename(b).localeCompare(path.basename(a)));
}

/**
 * One JSON file of a run directory (its test record, its results): its value, or undefined with the reason pushed
 * on `problems` (missing, or not JSON). Every reader of a run's JSON files goes through here.
 */
export function readJsonFile(file: string, problems: string[] = []): unknown {
  if (!fs.existsSync(file)) {
    problems.push(`${path.basename(file)} is missing`);
    return undefined;
  }
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${path.basename(file)} is not valid JSON (${(err as Error).message})`);
    return undefined;
  }
}

/** The test record as the run writes it, each time it learns more (versions, skipped faults, interrupted). */
export function writeTest(runDir: string, test: StoredTestJson): void {
  writeJson(runPath(runDir, 'test'), test);
}

/**
 * The test record as it is on disk (any shape: older runs, plugins, fixtures), through its decoder (a newer format
 * is refused, exit 254); undefined with `problems` said.
 */
export function readTestRaw(runDir: string, problems: string[] = []): unknown {
  const file = runPath(runDir, 'test');
  const raw = readJsonFile(file, problems);
  return raw === undefined ? undefined : decodeTestJson(raw, file);
}

/** The test record read tolerantly into the shape pages use; a missing field shows as unknown. */
export function readTest(runDir: string, problems: string[] = []): TestJson {
  return normalizeTestJson(readTestRaw(runDir, problems), path.basename(path.dirname(path.resolve(runDir))));
}

/** The results, for the one writer: the run's analysis (harness/analyze.ts), fresh or re-checked. */
export function writeResults(runDir: string, results: RunResults): void {
  writeJson(runPath(runDir, 'results'), encodeResults(results));
}

/** The results as stored, through their decoder (a newer format is refused, exit 254): `{}` when missing or unreadable, with `problems` said. */
export function readResults(runDir: string, problems: string[] = []): Partial<StoredResults> {
  const file = runPath(runDir, 'results');
  const raw = readJsonFile(file, problems);
  return raw === undefined ? {} : decodeResults(raw, file);
}

/** The history, strictly (a malformed line throws: what a checker reads), in the order the file has it. */
export function readRunHistory(runDir: string): { history: History; truncatedTail: boolean } {
  const { ops, truncatedTail } = readHistory(runPath(runDir, 'history'));
  return { history: History.of(ops), truncatedTail };
}

/** Puts a finished run's history in time order on disk (history/time-order.ts), before anything checks it. */
export function sealRunHistory(runDir: string): void {
  sealInTimeOrder(runPath(runDir, 'history'));
}

/** A run dir as pages read it. Every file may be missing or partial: a crashed run is still worth looking at. */
export interface RunFiles {
  dir: string;
  history: History;
  /** `{}` when the results are missing or unreadable; `problems` says which. */
  results: Partial<RunResults>;
  test: TestJson;
  problems: string[];
  /** The history's last line was cut short (a crash mid-write) and was skipped. */
  truncatedTail: boolean;
}

/** `withHistory: false` skips the history (pages that only need the numbers: index, compare). */
export function readRun(runDir: string, opts: { withHistory?: boolean } = {}): RunFiles {
  const problems: string[] = [];
  const historyFile = runPath(runDir, 'history');
  let ops: Op[] = [];
  let truncatedTail = false;
  if (opts.withHistory === false) {
    /* not read */
  } else if (fs.existsSync(historyFile)) {
    const parsed = readHistoryTolerant(historyFile);
    ({ ops, truncatedTail } = parsed);
    // A malformed line is skipped and reported rather than losing the whole page.
    if (parsed.badLines.length > 0) problems.push(describeBadLines(RUN_FILES.history, parsed.badLines));
  } else problems.push(`${RUN_FILES.history} is missing`);
  const results = readResults(runDir, problems);
  const test = readTest(runDir, problems);
  return { dir: runDir, history: History.of(ops), results, test, problems, truncatedTail };
}
