import fs from 'node:fs';
import { CLI } from '../common/cli-name.ts';
import { HarnessError } from '../common/errors.ts';
import type { Op } from '../history/op.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { verdictWord } from '../checkers/verdict.ts';
import { isRunDir, readResults, readRunHistory, readTestRaw } from '../store/run-dir.ts';
import type { StoredTestJson } from '../store/test-json.ts';

/** A run whose checkers found a failure: its history (in time order), results and test record. */
export interface FailingRun {
  ops: readonly Op[];
  results: RunResults;
  test: StoredTestJson;
}

/** A run folder whose checkers found a failure, read; or a 254 that says what the folder is instead. */
export function readFailingRun(runDir: string, command: string): FailingRun {
  const fail = (why: string, hint?: string) =>
    new HarnessError('bad-arguments', `${command} ${runDir}: ${why}.`, { hint });
  if (!fs.existsSync(runDir) || !fs.statSync(runDir).isDirectory() || !isRunDir(runDir))
    throw fail(
      'not a run folder (no test.json)',
      `a run folder is results/<lock>/<timestamp>/, as a run's summary names it`,
    );
  const problems: string[] = [];
  const results = readResults(runDir, problems) as RunResults;
  if (problems.length)
    throw fail(`it has no usable results (${problems.join('; ')})`, `check it first: ${CLI} check ${runDir}`);
  if (results.valid !== false)
    throw fail(
      `its verdict is ${verdictWord(results.valid)}: there is no failure to reproduce`,
      `${command} takes a run whose summary says INVALID`,
    );
  const test = readTestRaw(runDir, problems) as StoredTestJson;
  if (problems.length || typeof test !== 'object' || test === null || typeof test.config !== 'object')
    throw fail(`its test.json is unreadable (${problems.join('; ') || 'no config'})`);
  let history;
  try {
    history = readRunHistory(runDir).history;
  } catch (err) {
    throw fail(`its history cannot be read: ${(err as Error).message}`);
  }
  return { ops: history.ops, results, test };
}
