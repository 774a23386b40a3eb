import path from 'node:path';
import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../option-table.ts';
import { RUN_ROWS } from '../options.ts';

/** `fencepost serve`: the results folder for a browser (harness/serve-command.ts). */
export interface ServeConfig {
  readonly command: 'serve';
  readonly help: boolean;
  readonly resultsDir: string;
  /** The port asked for, or null for 8080-else-free. */
  readonly port: number | null;
}

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

export const serve: CommandSpec<ServeConfig> = {
  summary: 'serve the results folder on 127.0.0.1 for a browser',
  options: TABLE,
  parse,
};
