import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, type OptionSpec } from '../../harness/option-table.ts';
import type { CommandModule } from '../command-module.ts';

/** `fencepost init`: starter files in the current folder (harness/init-command.ts). */
export interface InitConfig {
  readonly command: 'init';
  readonly help: boolean;
}

const TABLE = [HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): InitConfig {
  return { command: 'init', help: parseArgv(args, TABLE, optionsOnly('init', context)).values.help };
}

export const init: CommandModule<InitConfig> = {
  summary: 'a starter lock plugin, expectations file and nightly workflow for your project, here',
  help: {
    about:
      'Writes a starter lock plugin (locks/my-lock.ts), an expectations file and a nightly workflow into the current folder, adds results/ to .gitignore, and prints the first command to run and what to change before the workflow can run in CI.',
    usage: ['init'],
    examples: [['init', 'in your project, after `npm install -D fencepost`']],
    docs: 'docs/your-lock.md',
    exitCodes: '0 the starter files were written, 254 one of them already exists (nothing written)',
  },
  options: TABLE,
  parse,
  async run() {
    const { initCommand } = await import('../../harness/init-command.ts');
    return initCommand(process.cwd());
  },
};
