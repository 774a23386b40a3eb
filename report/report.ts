import fs from 'node:fs';
import path from 'node:path';
import { RUN_FILE_MODE } from '../common/run-file-mode.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { renderReport } from './report-page.ts';
import { readRun, runPath } from '../store/run-dir.ts';

export { renderReport, type ReportInput } from './report-page.ts';

/**
 * Reads a run dir's history, results and test record (store/run-dir.ts) and writes its report beside them. Returns
 * the path written. A run without results (crashed before checking) still gets a report, with verdict unknown.
 */
export function writeReport(runDir: string): string {
  const run = readRun(runDir);
  const html = renderReport({
    history: run.history,
    results: run.results as RunResults,
    test: run.test,
    runDir: path.resolve(runDir),
    problems: run.problems,
  });
  const file = runPath(runDir, 'report');
  fs.writeFileSync(file, html, { mode: RUN_FILE_MODE });
  return file;
}
