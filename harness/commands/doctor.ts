import path from 'node:path';
import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../option-table.ts';
import { RUN_ROWS } from '../options.ts';

/** `fencepost doctor`: is this machine ready (harness/doctor.ts runs it). */
export interface DoctorConfig {
  readonly command: 'doctor';
  readonly help: boolean;
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
  readonly json: boolean;
}

const TABLE = [
  ...pickRows(RUN_ROWS, ['backend', 'results']),
  { name: 'json', kind: 'bool', default: false, help: 'doctor: print JSON instead of a table' },
  HELP_OPTION,
] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): DoctorConfig {
  const { values: v } = parseArgv(args, TABLE, optionsOnly('doctor', context));
  return { command: 'doctor', help: v.help, backend: v.backend, resultsDir: path.resolve(v.results), json: v.json };
}

export const doctor: CommandSpec<DoctorConfig> = {
  summary: 'check the servers, boot the whole cluster once, print versions and boot times',
  options: TABLE,
  parse,
};
