import type { CommandModule, ParsedCommand } from './command-module.ts';
import { run } from './commands/run.ts';
import { init } from './commands/init.ts';
import { doctor } from './commands/doctor.ts';
import { check } from './commands/check.ts';
import { compare } from './commands/compare.ts';
import { lockCheck } from './commands/lock-check.ts';
import { cleanup } from './commands/cleanup.ts';
import { serve } from './commands/serve.ts';
import { repro } from './commands/repro.ts';
import { replay } from './commands/replay.ts';
import { shrink } from './commands/shrink.ts';
import { target } from './commands/target.ts';
import { nightly } from './commands/nightly.ts';
import { completion } from './commands/completion.ts';

/** The table, checked: each module is filed under its own command's name (`compare: check` does not compile). */
function commandTable<T extends { readonly [K in keyof T]: CommandModule<ParsedCommand & { readonly command: K }> }>(
  table: T,
): T {
  return table;
}

/**
 * Every command of the CLI, once (Jepsen's `cli.clj` takes "a map of subcommand names to subcommand-specs"): a new
 * one is its module in commands/ and one line here. The parse (command-line.ts), the help (command-help.ts), the
 * reference in docs/cli.md (cli-reference.ts) and cli.ts's dispatch all read this table. `run` is the command of
 * an argv that names none; the others are listed by --help in this order.
 */
export const COMMANDS = commandTable({
  run,
  init,
  doctor,
  check,
  compare,
  'lock-check': lockCheck,
  cleanup,
  serve,
  repro,
  replay,
  shrink,
  target,
  nightly,
  completion,
});

export type CommandName = keyof typeof COMMANDS;
export type Subcommand = Exclude<CommandName, 'run'>;

/** A command's config: what its parser returns. */
export type ConfigOf<C extends CommandName> = ReturnType<(typeof COMMANDS)[C]['parse']>;

/** The module of any command, for code that reads every module alike (the parse, the help, the dispatch). */
export function commandModule(name: CommandName): CommandModule<ParsedCommand> {
  return COMMANDS[name];
}
