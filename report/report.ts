import fs from 'node:fs';
import path from 'node:path';
import { RUN_FILE_MODE } from '../store/results-store.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { renderReport } from './report-page.ts';
import { readRun } from '../store/run-files.ts';

export { renderReport, type ReportInput } from './report-page.ts';

/**
 * Reads a run dir's history.jsonl, results.json and test.json and writes report.html beside them. Returns the
 * path written. A run without results.json (crashed before checking) still gets a report, with verdict unknown.
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
  const file = path.join(runDir, 'report.html');
  fs.writeFileSync(file, html, { mode: RUN_FILE_MODE });
  return file;
}
