import path from 'node:path';
import { HELP_OPTION, optionsOnly, type ParseContext } from '../../harness/command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../../harness/option-table.ts';
import { RUN_ROWS } from '../../harness/options.ts';
import type { ServeConfig } from '../../harness/serve-command.ts';
import type { CommandModule } from '../command-module.ts';

const TABLE = [
  ...pickRows(RUN_ROWS, ['results']),
  {
    name: 'port',
    value: 'port',
    kind: 'int',
    defaultText: '8080, or a free port if that is taken',
    min: 1,
    max: 65_535,
    help: 'serve: port on 127.0.0.1 (given explicitly, it must be free)',
  },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): ServeConfig {
  const { values: v } = parseArgv(args, TABLE, optionsOnly('serve', context));
  return { command: 'serve', help: v.help, resultsDir: path.resolve(v.results), port: v.port ?? null };
}

export const serve: CommandModule<ServeConfig> = {
  summary: 'serve the results folder on 127.0.0.1 for a browser',
  help: {
    about:
      'Serves the results folder on 127.0.0.1 (reports, the index, histories, logs; never a secret) for a browser.',
    usage: ['serve [--port=<n>] [--results=<dir>]'],
    examples: [['serve', 'then open the printed address']],
    docs: 'docs/results.md',
    exitCodes: '254 bad arguments or a port that is taken (otherwise it serves until Ctrl-C: 130)',
  },
  options: TABLE,
  parse,
  async run(config, shutdown) {
    const { serveCommand } = await import('../../harness/serve-command.ts');
    return serveCommand(config, shutdown);
  },
};
