import { CLI } from '../common/cli-name.ts';
import type { HarnessError } from '../common/errors.ts';
import { bad, type OptionSpec, type ParseRules } from './option-table.ts';

/**
 * What every command's parser shares, below the CLI's table (cli/command-table.ts) so a test run's own parse
 * (run-argv.ts), which every floor reads an argv through, needs nothing above harness/.
 */

/** Where a run's random seed comes from when `--seed` is not given (a test passes a fixed one). */
export type RandomSeed = () => number;

/** What a command's parser is told by the command line as a whole (cli/command-line.ts; resolveConfig tells less). */
export interface ParseContext {
  /** The refusal of an option this command lacks that another command takes: it names where it belongs. */
  readonly elsewhere: (name: string) => HarnessError | null;
  /** The subcommands' names, for the refusal of a stray word. */
  readonly subcommands: readonly string[];
  readonly randomSeed: RandomSeed;
}

/** The row every command's table ends with. */
export const HELP_OPTION = {
  name: 'help',
  kind: 'bool',
  default: false,
  help: "print this help (a subcommand's own with `<subcommand> --help`)",
} as const satisfies OptionSpec;

/** A subcommand that takes options and no words: a stray word is refused with where its help is. */
export function optionsOnly(command: string, { elsewhere }: ParseContext): ParseRules {
  return {
    words: 'refuse',
    badWord: (arg: string) => bad(`unexpected argument "${arg}" after ${command}.`, `${CLI} ${command} --help`),
    elsewhere,
  };
}

/** A parsed config, frozen all the way down: nothing mid-run can change what the command line said. */
export function deepFreeze<T>(o: T): Readonly<T> {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}
