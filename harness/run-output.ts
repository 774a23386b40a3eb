import type { RunResults } from '../checkers/run-results.ts';
import { wantsColour } from './verdict-colour.ts';
import type { Config } from './run-argv.ts';
import { runJson } from './run-json.ts';
import { runSummary } from './run-summary.ts';

/** Where a run's closing output goes: the process's stdout and stderr and its environment (a test's own, in tests). */
export interface Terminal {
  readonly out: { readonly isTTY?: boolean; write(text: string): unknown };
  readonly err: { readonly isTTY?: boolean; write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

const processTerminal = (): Terminal => ({ out: process.stdout, err: process.stderr, env: process.env });

/**
 * A run's result, as the command's output. The summary is on stdout, so `npm run jepsen … > verdict.txt` keeps it
 * without the progress lines; with --json stdout is one JSON object (harness/run-json.ts) and the summary moves to
 * stderr, so a script parses stdout whole. The verdict word is coloured only on a terminal, NO_COLOR unset.
 */
export function printRunOutput(
  config: Readonly<Config>,
  runDir: string,
  results: RunResults,
  faults: readonly string[],
  terminal: Terminal = processTerminal(),
): void {
  const human = config.json ? terminal.err : terminal.out;
  const colour = wantsColour(human, terminal.env);
  human.write(`${runSummary(config, runDir, results, faults, { colour })}\n`);
  if (config.json) terminal.out.write(`${JSON.stringify(runJson(config, runDir, results, faults))}\n`);
}
