import { CLI } from '../common/cli-name.ts';
import { exitCodeLine } from '../common/exit-codes.ts';
import { FAULT_CATALOGUE } from '../faults/catalogue.ts';
import { helpWidth, twoColumns, wrapText } from '../harness/help-layout.ts';
import { optionRows, type OptionSpec } from '../harness/option-table.ts';
import type { CommandHelp } from './command-module.ts';
import { COMMANDS, type CommandName, type Subcommand } from './command-table.ts';
import { commandOptions, OPTIONS, SUBCOMMANDS } from './command-line.ts';

/**
 * `--help`, for the CLI as a whole (the run's) and for each subcommand: what it does, how it is called, its own
 * options (from its option table, so a new option is listed where it is accepted), examples, and where the docs say
 * more — each from the command's module (commands/). Every line is wrapped to the terminal (help-layout.ts).
 * Printed on stdout, exit 0, for every subcommand.
 */

function section(title: string, lines: readonly string[]): string[] {
  return lines.length ? ['', `${title}:`, ...lines] : [];
}

function examples(rows: readonly (readonly [string, string])[], width: number): string[] {
  return rows.flatMap(([args, what]) => [...commandLines(`${CLI} ${args}`, width), ...wrapText(`# ${what}`, width, 6)]);
}

/** A command to copy, on its own lines: one too wide is continued with a backslash, so a shell still reads it whole. */
function commandLines(command: string, width: number): string[] {
  const lines = wrapText(command, width - 2, 6, 2);
  return lines.map((l, i) => (i < lines.length - 1 ? `${l} \\` : l));
}

function optionsSection(options: readonly OptionSpec[], width: number): string[] {
  return twoColumns(optionRows(options), width);
}

/** `fencepost --help`: what it is, how to call it, the run's options in groups, the subcommands, the faults. */
export function globalHelp(width = helpWidth()): string {
  const { summary, help } = COMMANDS.run;
  const byName = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));
  const groups = (help.groups ?? []).flatMap(([title, names]) => {
    const rows = optionsSection(
      names.map((n) => byName.get(n)!),
      width,
    );
    return title ? section(title, rows) : rows;
  });
  return [
    ...wrapText(`fencepost — ${help.about}`, width, 0),
    '',
    'usage:',
    ...twoColumns(
      [
        [`${CLI} ${help.usage[0]}`, summary],
        [`${CLI} <subcommand> [args]`, 'a subcommand; each has its own --help'],
      ],
      width,
      46,
    ),
    ...section('examples', examples(help.examples, width)),
    ...groups,
    ...section('subcommands', twoColumns(Object.entries(SUBCOMMANDS), width, 14)),
    ...section(
      'faults (--nemesis)',
      twoColumns(
        Object.entries(FAULT_CATALOGUE).map(([name, facts]) => [name, facts.help]),
        width,
        20,
      ),
    ),
    '',
    ...wrapText(exitCodeLine(help.exitCodes), width, 2, 0),
    ...wrapText(`docs: ${help.docs}`, width, 2, 0),
  ].join('\n');
}

/** `fencepost <subcommand> --help`, or with a verb the command has its own help for, `nightly merge --help`. */
export function commandHelp(command: Subcommand, width = helpWidth(), verb?: string): string {
  const whole: CommandHelp = COMMANDS[command].help;
  const own = verb !== undefined ? whole.verbs?.[verb] : undefined;
  const h = own ?? whole;
  const options = own
    ? own.options.map((n) => commandOptions(command).find((o) => o.name === n)!)
    : commandOptions(command);
  return [
    ...wrapText(`${CLI} ${own ? `${command} ${verb}` : command} — ${h.about}`, width, 2, 0),
    '',
    'usage:',
    ...h.usage.flatMap((u) => wrapText(`${CLI} ${u}`, width, 6, 2)),
    ...section('options', optionsSection(options, width)),
    ...section('examples', examples(h.examples, width)),
    '',
    ...wrapText(exitCodeLine(h.exitCodes), width, 2, 0),
    ...wrapText(`docs: ${h.docs}`, width, 2, 0),
  ].join('\n');
}

/** The help a parsed command line asks for: its words decide a verb's (`nightly merge --help`). */
export function helpFor(command: CommandName, words: readonly string[] = []): string {
  return command === 'run' ? globalHelp() : commandHelp(command, helpWidth(), words[0]);
}
