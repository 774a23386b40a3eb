import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, type OptionSpec } from '../../harness/option-table.ts';
import type { CommandModule } from '../command-module.ts';

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

export const target: CommandModule<TargetConfig> = {
  summary: 'connect to your own servers, prove the credentials are fenced to its key prefix, list what a run touches',
  help: {
    about:
      'Connects to a target (your own servers, described in a target file), proves its credentials are fenced to the key prefix the runs may use (a read, a write and a delete outside it must each be refused), and lists every command and key a run against it would touch; nothing is left behind.',
    usage: ['target check <target file>'],
    examples: [['target check ./fencepost.target.json', 'before the first --target run']],
    docs: 'docs/targets.md',
    exitCodes: '0 the target is fenced to its key prefix, 254 a problem with the target file or its credentials',
  },
  options: TABLE,
  parse,
  async run(config) {
    const { targetCommand } = await import('../../harness/target-check-command.ts');
    return targetCommand(config.rest);
  },
};
