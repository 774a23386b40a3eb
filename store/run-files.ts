import fs from 'node:fs';
import path from 'node:path';
import { describeBadLines } from '../history/codec.ts';
import type { Op } from '../history/op.ts';
import { readHistoryTolerant } from '../history/reader.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { normalizeTestJson, type TestJson } from './test-json.ts';

/** A run dir as pages read it. Every file may be missing or partial: a crashed run is still worth looking at. */
export interface RunFiles {
  dir: string;
  history: Op[];
  /** `{}` when results.json is missing or unreadable; `problems` says which. */
  results: Partial<RunResults>;
  test: TestJson;
  problems: string[];
  /** The history's last line was cut short (a crash mid-write) and was skipped. */
  truncatedTail: boolean;
}

/**
 * One JSON file of a run directory (test.json, results.json): its value, or undefined with the reason pushed on
 * `problems` (missing, or not JSON). Every reader of a run's JSON files goes through here.
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

/** `withHistory: false` skips history.jsonl (pages that only need the numbers: index, compare). */
export function readRun(runDir: string, opts: { withHistory?: boolean } = {}): RunFiles {
  const problems: string[] = [];
  const historyFile = path.join(runDir, 'history.jsonl');
  let history: Op[] = [];
  let truncatedTail = false;
  if (opts.withHistory === false) {
    /* not read */
  } else if (fs.existsSync(historyFile)) {
    const parsed = readHistoryTolerant(historyFile);
    ({ ops: history, truncatedTail } = parsed);
    // A malformed line is skipped and reported rather than losing the whole page.
    if (parsed.badLines.length > 0) problems.push(describeBadLines('history.jsonl', parsed.badLines));
  } else problems.push('history.jsonl is missing');
  const results = readJsonFile(path.join(runDir, 'results.json'), problems);
  const test = normalizeTestJson(
    readJsonFile(path.join(runDir, 'test.json'), problems),
    path.basename(path.dirname(path.resolve(runDir))),
  );
  return {
    dir: runDir,
    history,
    results: results && typeof results === 'object' ? (results as Partial<RunResults>) : {},
    test,
    problems,
    truncatedTail,
  };
}
