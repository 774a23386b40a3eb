import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, type OptionSpec } from '../option-table.ts';

/** `fencepost init`: starter files in the current folder (harness/init-command.ts). */
export interface InitConfig {
  readonly command: 'init';
  readonly help: boolean;
}

const TABLE = [HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): InitConfig {
  return { command: 'init', help: parseArgv(args, TABLE, optionsOnly('init', context)).values.help };
}

export const init: CommandSpec<InitConfig> = {
  summary: 'a starter lock plugin, expectations file and nightly workflow for your project, here',
  options: TABLE,
  parse,
};
