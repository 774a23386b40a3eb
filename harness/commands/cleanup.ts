import path from 'node:path';
import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../option-table.ts';
import { RUN_ROWS } from '../options.ts';

/** `fencepost cleanup`: what runs killed with kill -9 left behind (harness/cleanup.ts, target-cleanup.ts). */
export interface CleanupConfig {
  readonly command: 'cleanup';
  readonly help: boolean;
  readonly resultsDir: string;
  /** Also remove the node data of dead runs. */
  readonly data: boolean;
  /** --target: also remove the keys under that target's prefix, when no live run of ours uses it. */
  readonly target: string | null;
}

const TABLE = [
  ...pickRows(RUN_ROWS, ['results', 'target']),
  {
    name: 'data',
    kind: 'bool',
    default: false,
    help: 'cleanup: also remove the node data (nodes/) of runs whose harness is gone',
  },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): CleanupConfig {
  const { values: v } = parseArgv(args, TABLE, optionsOnly('cleanup', context));
  return {
    command: 'cleanup',
    help: v.help,
    resultsDir: path.resolve(v.results),
    data: v.data,
    target: v.target !== undefined ? path.resolve(v.target) : null,
  };
}

export const cleanup: CommandSpec<CleanupConfig> = {
  summary: 'stop what runs killed with kill -9 left behind',
  options: TABLE,
  parse,
};
