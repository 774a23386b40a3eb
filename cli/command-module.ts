import type { Shutdown } from '../common/shutdown.ts';
import type { ParseContext } from '../harness/command-spec.ts';
import type { OptionSpec } from '../harness/option-table.ts';

/** What `--help` says of a command, besides its options (cli/command-help.ts lays it out). */
export interface CommandHelp {
  /** One sentence: what the command does. */
  readonly about: string;
  /** Its call forms, after the CLI's name. */
  readonly usage: readonly string[];
  /** [arguments after the CLI's name, what it does]. */
  readonly examples: readonly (readonly [string, string])[];
  /** The page that says more, a repository path (a run's help names several). */
  readonly docs: string;
  /**
   * What its exit codes mean, as its --help ends them (`0 …, 254 …`; exitCodeLine adds 130 and 255): each command's
   * own, since `nightly`'s 1 is a cell that contradicts its expectation and `serve` has no verdict at all.
   */
  readonly exitCodes: string;
  /** Its options in titled groups, by name, when one list would be too long to read (a run's). */
  readonly groups?: readonly (readonly [string, readonly string[]])[];
  /**
   * The help of a verb the command takes as its first word (`nightly merge`), which does another job with a few of
   * its options: `nightly merge --help` prints this, not the night's 34 options.
   */
  readonly verbs?: { readonly [verb: string]: VerbHelp };
}

/** A verb's own help: its text, and which of its command's options it reads, by name, in the order listed. */
export interface VerbHelp extends Omit<CommandHelp, 'groups' | 'verbs'> {
  readonly options: readonly string[];
}

/** What every command's config says: which command, and whether only its help was asked for. */
export interface ParsedCommand {
  readonly command: string;
  readonly help: boolean;
}

/**
 * One command, whole, as Jepsen's `cli.clj` spells one (`:opt-spec`, `:opt-fn`, `:usage`, `:run`): the line the
 * global `--help` lists it with, its own help, the options it takes (its table, in the order its help and its
 * refusals list them), its parser from the words after its name to its config, and what running it does. `run`
 * imports its body when called, so `--help` and a refused argument answer before any of it loads.
 */
export interface CommandModule<C extends ParsedCommand> {
  readonly summary: string;
  readonly help: CommandHelp;
  readonly options: readonly OptionSpec[];
  /**
   * The command reads its own words (its body parses them with `options`): the command line hands them over in
   * `rest`, refuses none of them, and leaves its folders as given (they are run folders, not the results folder).
   */
  readonly passThrough?: true;
  parse(args: readonly string[], context: ParseContext): C;
  // Methods, not function-typed fields: so the table can hold every module as a CommandModule<ParsedCommand>.
  run(config: Readonly<C>, shutdown: Shutdown): Promise<number>;
}
