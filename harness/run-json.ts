import path from 'node:path';
import type { RunResults } from '../checkers/run-results.ts';
import { verdictExitCode, verdictWord, type VerdictWord } from '../checkers/verdict.ts';
import { rerunLine, reproLine } from '../store/rerun-line.ts';
import { runPath } from '../store/run-dir.ts';
import type { Config } from './run-argv.ts';
import { nextStepLine } from './run-summary.ts';

/**
 * `--json`: a run's summary as one JSON object on stdout, for a script (k6's `--summary-export`, vitest's
 * `--reporter=json`): the verdict and its exit code, the counts the summary's lines give, and where the run's files
 * are. The human summary then goes to stderr, so stdout parses whole. docs/results.md lists the fields; a field is
 * added, never renamed or dropped, without changing `format`.
 */
export interface RunJson {
  /** Which shape this is: a script can refuse one it does not know. */
  readonly format: 'fencepost-run-summary/1';
  readonly verdict: VerdictWord;
  /** The process's exit code for this verdict: 0 valid, 1 invalid, 2 unknown. */
  readonly exitCode: number;
  /** Why the verdict is UNKNOWN, most important first; empty otherwise. */
  readonly unknownReasons: readonly string[];
  /** What to do about this verdict, and where the lock's story is: the summary's `what to do:` line. */
  readonly nextStep: string;
  readonly lock: string;
  readonly fencing: boolean;
  readonly seed: number;
  /** The faults the run had, by name, each as --nemesis names it. */
  readonly faults: readonly string[];
  readonly durationS: number;
  readonly counts: {
    readonly ops: { readonly total: number; readonly ok: number; readonly fail: number; readonly info: number };
    readonly lostUpdates: number;
    /** Lost updates by the fault active when each happened (`no fault` for contention alone). */
    readonly lostUpdatesByFault: Readonly<Record<string, number>>;
    readonly staleWritesRejected: number;
    readonly overlaps: number;
    readonly confirmedOverlaps: number;
    /** Fault windows: every time a fault acted. */
    readonly faultWindows: number;
  };
  /** Absolute paths: a script may read them from any folder. */
  readonly runDir: string;
  readonly report: string;
  readonly results: string;
  /** The command that reruns the same test with the same seed. */
  readonly replay: string;
  /** For an INVALID run, the command that turns it into a reproduction bundle; null otherwise. */
  readonly reproduce: string | null;
}

export function runJson(config: Readonly<Config>, runDir: string, r: RunResults, faults: readonly string[]): RunJson {
  const dir = path.resolve(runDir);
  return {
    format: 'fencepost-run-summary/1',
    verdict: verdictWord(r.valid),
    exitCode: verdictExitCode(r.valid),
    unknownReasons: r.valid === 'unknown' ? r.unknownReasons : [],
    nextStep: nextStepLine(config, r, faults),
    lock: config.lock,
    fencing: config.fencing,
    seed: config.seed,
    faults: [...faults],
    durationS: Math.round(r.durationMs) / 1000,
    counts: {
      ops: { total: r.opCounts.total, ok: r.opCounts.ok, fail: r.opCounts.fail, info: r.opCounts.info },
      lostUpdates: r.lostUpdates,
      lostUpdatesByFault: r.lostUpdatesByFault ?? {},
      staleWritesRejected: r.staleWritesRejected,
      overlaps: r.overlaps,
      confirmedOverlaps: r.confirmedOverlaps,
      faultWindows: r.faults.length,
    },
    runDir: dir,
    report: runPath(dir, 'report'),
    results: runPath(dir, 'results'),
    replay: rerunLine(config),
    reproduce: r.valid === false ? reproLine(dir) : null,
  };
}
