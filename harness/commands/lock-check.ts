import path from 'node:path';
import { HELP_OPTION, optionsOnly, type CommandSpec, type ParseContext } from '../command-spec.ts';
import { parseArgv, pickRows, type OptionSpec } from '../option-table.ts';
import { RUN_ROWS } from '../options.ts';

/** `lock-check <manifest | exec:program>`: the lock in `rest`, the cluster it starts on `backend`. */
export interface LockCheckConfig {
  readonly command: 'lock-check';
  readonly help: boolean;
  readonly rest: readonly string[];
  readonly backend: 'local' | 'docker';
  readonly resultsDir: string;
}

const TABLE = [...pickRows(RUN_ROWS, ['backend', 'results']), HELP_OPTION] as const satisfies readonly OptionSpec[];

function parse(args: readonly string[], context: ParseContext): LockCheckConfig {
  const { values: v, words } = parseArgv(args, TABLE, { ...optionsOnly('lock-check', context), words: 'collect' });
  return { command: 'lock-check', help: v.help, rest: words, backend: v.backend, resultsDir: path.resolve(v.results) };
}

export const lockCheck: CommandSpec<LockCheckConfig> = {
  summary: "a lock in another language against the lock-client protocol's contract",
  options: TABLE,
  parse,
};
