import { verdictExitCode } from '../checkers/verdict.ts';
import type { RunResults } from '../checkers/run-results.ts';
import type { ExitCode } from '../common/exit-codes.ts';
import { analyze } from './analyze.ts';
import { consoleLog } from './console-log.ts';
import type { Config } from './run-argv.ts';
import { printRunOutput } from './run-output.ts';
import { runSummary } from './run-summary.ts';

export interface RunOutcome {
  exitCode: ExitCode;
  runDir: string;
  results: RunResults;
  /** --stop-on-lost-update ended the run this many seconds in, before its time limit. */
  stoppedEarlyAtS?: number;
}

/** Check (the same analysis `check <run-dir>` makes of a stored run, from the files just sealed), report, say it. */
export async function concludeRun(
  config: Readonly<Config>,
  runDir: string,
  faults: readonly string[],
  log: (line: string) => void,
): Promise<RunOutcome> {
  const analysis = analyze(runDir, { warn: (line) => log(`fencepost: warning: ${line}`) });
  if (!analysis.ok) throw new Error(`the run's own history cannot be checked: ${analysis.problem}`);
  const { results } = analysis;
  await writeReports(runDir, config.resultsDir, log);
  // The verdict is the command's output (stdout, or JSON there with --json: run-output.ts). A caller's own log
  // (tests, the matrix) gets the summary like every other line.
  if (log === consoleLog) printRunOutput(config, runDir, results, faults);
  else log(runSummary(config, runDir, results, faults));
  return { exitCode: verdictExitCode(results.valid), runDir, results };
}

/** Reports are a view of the files: a failure to render must not change the verdict. */
async function writeReports(runDir: string, resultsDir: string, log: (l: string) => void): Promise<void> {
  try {
    const report = await import('../report/report.ts');
    report.writeReport(runDir);
    const index = await import('../report/index-page.ts');
    index.writeIndex(resultsDir);
  } catch (err) {
    log(`fencepost: could not write the HTML report: ${(err as Error).message}`);
  }
}
