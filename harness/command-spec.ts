import { CLI } from '../common/cli-name.ts';
import type { HarnessError } from '../common/errors.ts';
import { bad, type OptionSpec, type ParseRules } from './option-table.ts';

/** Where a run's random seed comes from when `--seed` is not given (a test passes a fixed one). */
export type RandomSeed = () => number;

/** What a command's parser is told by the command line as a whole (harness/command-line.ts). */
export interface ParseContext {
  /** The refusal of an option this command lacks that another command takes: it names where it belongs. */
  readonly elsewhere: (name: string) => HarnessError | null;
  /** The subcommands' names, for the refusal of a stray word. */
  readonly subcommands: readonly string[];
  readonly randomSeed: RandomSeed;
}

/**
 * One subcommand, as Jepsen's `cli.clj` spells one (`:opt-spec`, `:opt-fn`, `:usage`): the line `--help` lists it
 * with, the options it takes (its table, in the order its help and its refusals list them), and its parser, from the
 * words after its name to its frozen config. What it does when run is `cli.ts`'s dispatch; its help, command-help.ts.
 */
export interface CommandSpec<C> {
  readonly summary: string;
  readonly options: readonly OptionSpec[];
  readonly parse: (args: readonly string[], context: ParseContext) => C;
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
