import type { Shutdown } from '../common/shutdown.ts';
import type { Config } from '../harness/run-argv.ts';
import { runTest, type RunOutcome } from '../harness/run.ts';
import { badScenario, scenarioRun } from './scenario-config.ts';
import type { Scenario } from './scenario-file.ts';
import { scenarioDriver } from './scenario-run.ts';
import { lockRef } from '../workloads/lock-ref.ts';

/**
 * `--scenario=<file>` with any lock (a built-in, a plugin, a manifest): one run whose clients follow the script.
 * Checked, reported and exited like any run; the test record keeps the script and how far it was followed.
 */
export async function scenarioCommand(config: Readonly<Config>, shutdown: Shutdown): Promise<number> {
  return (await runScenario(config.scenario!, config, shutdown)).exitCode;
}

/** One scripted run of the scenario in `file` (or `scenario`, already read from it) with the command line's `base` options. */
export async function runScenario(
  file: string,
  base: Readonly<Config>,
  shutdown: Shutdown,
  opts: { scenario?: Scenario; log?: (line: string) => void } = {},
): Promise<RunOutcome> {
  if (lockRef(base.lock).kind === 'all')
    throw badScenario(file, ['--lock=all runs the matrix: a scenario runs with one lock']);
  const { scenario, config } = await scenarioRun(file, base, opts.scenario);
  return runTest(config, shutdown, opts.log, scenarioDriver(scenario, file));
}
