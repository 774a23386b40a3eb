import path from 'node:path';
import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, type OptionSpec } from '../option-table.ts';

/** `target check <file>`: the words in `rest` (harness/target-check-command.ts). */
export interface TargetConfig {
  readonly command: 'target';
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly resultsDir: string;
}

const TABLE = [HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): TargetConfig {
  const { values: v, words } = parseArgv(args, TABLE, { ...optionsOnly('target', context), words: 'collect' });
  return { command: 'target', help: v.help, rest: words, resultsDir: path.resolve('results') };
}

export const target: CommandSpec<TargetConfig> = {
  summary: 'connect to your own servers, prove the credentials are fenced to its key prefix, list what a run touches',
  options: TABLE,
  parse,
};
