import { checkResultsFolder } from '../store/results-store.ts';
import { CLI } from '../common/cli-name.ts';
import type { HarnessError } from '../common/errors.ts';
import { bad, type OptionSpec } from '../harness/option-table.ts';
import { cryptoSeed } from '../harness/options.ts';
import { deepFreeze, type ParseContext, type RandomSeed } from '../harness/command-spec.ts';
import { commandModule, COMMANDS, type CommandName, type ConfigOf, type Subcommand } from './command-table.ts';

export type { CommandName, Subcommand } from './command-table.ts';

/**
 * The command line as a whole (Jepsen's `cli.clj` `run!`): which command argv names (command-table.ts), its parse
 * into a frozen config of only the options it takes, and the refusal of an option given to a command that does not
 * take it, which names the commands that do.
 */

const SUBCOMMAND_NAMES = (Object.keys(COMMANDS) as CommandName[]).filter((c): c is Subcommand => c !== 'run');

/** Each subcommand with the line --help lists it with (its own help: command-help.ts). */
export const SUBCOMMANDS = Object.fromEntries(SUBCOMMAND_NAMES.map((c) => [c, COMMANDS[c].summary])) as {
  readonly [C in Subcommand]: string;
};

/** What the command line says: one command and only the options that command takes. */
export type CommandLine = { [C in CommandName]: ConfigOf<C> }[CommandName];

/** The command a literal argv names (its first word), so `parseCommandLine(['serve', …])` is a ServeConfig. */
type CommandOf<A extends readonly string[]> = A extends readonly [infer F extends Subcommand, ...unknown[]]
  ? F
  : A extends readonly [] | readonly [`--${string}`, ...unknown[]]
    ? 'run'
    : CommandName;

/**
 * The commands whose options the command line reads (not those that read their own words), in the order a refusal
 * names them ("the nightly/doctor/lock-check subcommands") and docs/cli.md lists their options and their takers:
 * nightly first, its table being a run's rows but four; a command not named here comes after these, in the table's
 * order. An order only, kept from before the table so the docs and the refusals read as they did.
 */
const LISTED_FIRST: readonly Subcommand[] = ['nightly', 'doctor', 'lock-check', 'cleanup', 'serve', 'init'];
const rank = (c: Subcommand) => (LISTED_FIRST.includes(c) ? LISTED_FIRST.indexOf(c) : LISTED_FIRST.length);
export const OPTION_TAKERS: readonly Subcommand[] = SUBCOMMAND_NAMES.filter((c) => !commandModule(c).passThrough).sort(
  (a, b) => rank(a) - rank(b),
);

/** Every option of the CLI, once: a run's, then each subcommand's own, then the two about the CLI's own output. */
const LAST = ['verbose', 'help'];
export const OPTIONS: readonly OptionSpec[] = [COMMANDS.run.options, ...OPTION_TAKERS.map((c) => commandOptions(c))]
  .flat()
  .filter((o, i, all) => all.findIndex((x) => x.name === o.name) === i)
  // A stable sort: the rest keep their order (docs/cli.md lists them in this order).
  .sort((a, b) => Number(LAST.includes(a.name)) - Number(LAST.includes(b.name)));
const ROW = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));

/** Where an option belongs, for the refusal of one given elsewhere: "a test run and the nightly subcommand". */
function ownersOf(name: string): { words: string; only: string | null } {
  const inRun = COMMANDS.run.options.some((o) => o.name === name);
  const subs = OPTION_TAKERS.filter((c) => commandOptions(c).some((o) => o.name === name));
  const words = [
    ...(inRun ? ['a test run'] : []),
    ...(subs.length ? [`the ${subs.join('/')} subcommand${subs.length > 1 ? 's' : ''}`] : []),
  ].join(' and ');
  return { words, only: !inRun && subs.length === 1 ? subs[0] : null };
}

/** An option of another subcommand given to `command`: the refusal names where it belongs. */
function elsewhere(command: CommandName) {
  return (name: string): HarnessError | null => {
    if (!ROW.has(name)) return null;
    const owners = ownersOf(name);
    return bad(
      `--${name} applies to ${owners.words}${command === 'run' || owners.only ? '' : `, not ${command}`}.`,
      owners.only ? `${CLI} ${owners.only} --${name}${ROW.get(name)!.kind === 'bool' ? '' : '=…'}` : undefined,
    );
  };
}

/**
 * argv (what follows `npm run jepsen --`) → the command and a complete, frozen config of only the options it
 * takes (the seed chosen), or a HarnessError of kind `bad-arguments` (exit 254) before anything has started.
 */
export function parseCommandLine<const A extends readonly string[]>(
  argv: A,
  randomSeed: RandomSeed = cryptoSeed,
): Readonly<ConfigOf<CommandOf<A>>> {
  const first = argv[0];
  const command: CommandName =
    first !== undefined && (SUBCOMMAND_NAMES as readonly string[]).includes(first) ? (first as Subcommand) : 'run';
  const context: ParseContext = { elsewhere: elsewhere(command), subcommands: SUBCOMMAND_NAMES, randomSeed };
  const module = commandModule(command);
  const config = module.parse(command === 'run' ? argv : argv.slice(1), context);
  // Every command that writes into or acts on the results folder; the pass-through commands take run folders instead.
  // From here on the folder is its resolved path: a link on the way is followed once, now, never again mid-run.
  if (!config.help && 'resultsDir' in config && !module.passThrough)
    (config as { resultsDir: string }).resultsDir = checkResultsFolder(config.resultsDir as string);
  return deepFreeze(config) as Readonly<ConfigOf<CommandOf<A>>>;
}

/** The options `command` parses with, in its table's order (--help lists them; a pass-through command's own too). */
export function commandOptions(command: CommandName): readonly OptionSpec[] {
  return commandModule(command).options;
}
