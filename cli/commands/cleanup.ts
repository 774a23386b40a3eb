import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import { EXIT } from '../../common/exit-codes.ts';
import type { CommandModule } from '../command-module.ts';

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

export const cleanup: CommandModule<CleanupConfig> = {
  summary: 'stop what runs killed with kill -9 left behind',
  help: {
    about:
      'Stops what runs killed with kill -9 left behind (servers, clients, containers, scratch folders) — only runs whose harness is gone, only what this user created.',
    usage: ['cleanup [--data]'],
    examples: [
      ['cleanup', 'after a kill -9 of the harness'],
      ['cleanup --data', 'and remove those runs’ node data'],
    ],
    docs: 'docs/shared-machines.md',
    exitCodes: '0 nothing of a gone run is left running, 254 bad arguments or a target command that failed',
  },
  options: TABLE,
  parse,
  async run(config) {
    const { cleanup: stopLeftovers } = await import('../../harness/cleanup.ts');
    await stopLeftovers(config.resultsDir, console.log, { data: config.data });
    if (config.target) {
      const { cleanupTarget } = await import('../../harness/target-cleanup.ts');
      return cleanupTarget(config.target, config.resultsDir, console.log);
    }
    return EXIT.valid;
  },
};
