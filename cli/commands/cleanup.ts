import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import { HarnessError } from '../../common/errors.ts';
import { EXIT } from '../../common/exit-codes.ts';
import type { CommandModule } from '../command-module.ts';

/** `fencepost cleanup`: what runs killed with kill -9 left behind (harness/cleanup.ts, target-cleanup.ts). */
export interface CleanupConfig {
  readonly command: 'cleanup';
  readonly help: boolean;
  readonly resultsDir: string;
  /** Also remove the node data of dead runs. */
  readonly data: boolean;
  /** --target: also delete the keys that dead runs of ours recorded under that target's prefix. */
  readonly target: string | null;
  /**
   * --delete-unrecorded (with --target): also delete the keys under the prefix that no run of ours recorded, once
   * listed. Not `--yes`: npm and npx take that one for themselves (`npm_config_yes`), and fencepost would be told so
   * on every command run through npx.
   */
  readonly deleteUnrecorded: boolean;
}

const TABLE = [
  ...pickRows(RUN_ROWS, ['results', 'target']),
  {
    name: 'data',
    kind: 'bool',
    default: false,
    help: 'cleanup: also remove the node data (nodes/) of runs whose harness is gone',
  },
  {
    name: 'delete-unrecorded',
    kind: 'bool',
    default: false,
    help: 'cleanup --target: also delete the keys under the prefix that no run of ours recorded, each named first; without it they are listed and left',
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
    deleteUnrecorded: v['delete-unrecorded'],
  };
}

export const cleanup: CommandModule<CleanupConfig> = {
  summary: 'stop what runs killed with kill -9 left behind',
  help: {
    about:
      'Stops what runs killed with kill -9 left behind (servers, clients, containers, scratch folders) — only runs whose harness is gone, only what this user created.',
    usage: ['cleanup [--data]', 'cleanup --target=<file> [--delete-unrecorded]'],
    examples: [
      ['cleanup', 'after a kill -9 of the harness'],
      ['cleanup --data', 'and remove those runs’ node data'],
      ['cleanup --target=fencepost.target.json', 'and the keys dead runs recorded on that target; others are listed'],
    ],
    docs: 'docs/shared-machines.md',
    exitCodes: '0 nothing of a gone run is left running, 254 bad arguments or a target command that failed',
  },
  options: TABLE,
  parse,
  async run(config) {
    if (config.deleteUnrecorded && !config.target)
      throw new HarnessError('bad-arguments', '--delete-unrecorded goes with --target: it is about keys on a target', {
        hint: 'cleanup --target=<file> --delete-unrecorded',
      });
    // The target file is read (and refused) before anything else is done (audit R22).
    const { cleanupTarget, readCleanupTarget } = await import('../../harness/target-cleanup.ts');
    const spec = config.target ? readCleanupTarget(config.target) : null;
    const { cleanup: stopLeftovers } = await import('../../harness/cleanup.ts');
    const unhealed: string[] = [];
    await stopLeftovers(config.resultsDir, console.log, { data: config.data, unhealed });
    const code =
      config.target && spec
        ? await cleanupTarget(config.target, config.resultsDir, console.log, {
            deleteUnrecorded: config.deleteUnrecorded,
            spec,
          })
        : EXIT.valid;
    if (!unhealed.length) return code;
    throw new HarnessError(
      'bad-arguments',
      `could not heal ${unhealed.length} injection(s) a dead run left on a target: the server(s) may still be stopped or down (TARGET LEFT FAULTED above)`,
      {
        hint: 'run the heal command each line names, or fix the adapter and run `fencepost cleanup` again: it tries every one again',
      },
    );
  },
};
