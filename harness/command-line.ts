import { checkResultsFolder } from '../store/results-store.ts';
import { CLI } from '../common/cli-name.ts';
import type { HarnessError } from '../common/errors.ts';
import { bad, type OptionSpec } from './option-table.ts';
import { cryptoSeed } from './options.ts';
import type { CommandSpec, ParseContext, RandomSeed } from './command-spec.ts';
import { run, type Config } from './commands/run.ts';
import { nightly, type NightlyConfig } from './commands/nightly.ts';
import { doctor, type DoctorConfig } from './commands/doctor.ts';
import { cleanup, type CleanupConfig } from './commands/cleanup.ts';
import { serve, type ServeConfig } from './commands/serve.ts';
import { lockCheck, type LockCheckConfig } from './commands/lock-check.ts';
import { target, type TargetConfig } from './commands/target.ts';
import { init, type InitConfig } from './commands/init.ts';
import { check, compare, replay, repro, shrink } from './commands/pass-through.ts';
import type { PassThrough, PassThroughConfig } from './commands/pass-through.ts';

/**
 * The command line as a whole (Jepsen's `cli.clj` `run!`): the subcommands by name, each its own module under
 * harness/commands/ with its summary, options and parser; which one argv names; and the refusal of an option given
 * to a command that does not take it, which names the commands that do.
 */

/** The subcommands in the order --help lists them (a plain run has none: its argv starts with options). */
const COMMANDS = {
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
} as const;

/** Each subcommand with the line --help lists it with (its own help: harness/command-help.ts). */
export const SUBCOMMANDS = Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name, c.summary])) as {
  readonly [C in keyof typeof COMMANDS]: string;
};
export type Subcommand = keyof typeof SUBCOMMANDS | 'run';

/** What the command line says: one subcommand and only the options that subcommand takes. */
export type CommandLine =
  | Config
  | NightlyConfig
  | DoctorConfig
  | CleanupConfig
  | ServeConfig
  | PassThroughConfig
  | LockCheckConfig
  | TargetConfig
  | InitConfig;

/** The subcommand a literal argv names (its first word), so `parseCommandLine(['serve', …])` is a ServeConfig. */
type CommandOf<A extends readonly string[]> = A extends readonly [
  infer F extends keyof typeof SUBCOMMANDS,
  ...unknown[],
]
  ? F
  : A extends readonly [] | readonly [`--${string}`, ...unknown[]]
    ? 'run'
    : Subcommand;
type CommandConfig<C extends Subcommand> = Extract<CommandLine, { command: C }>;

/** The commands whose options the command line reads, in the order a refusal names them. */
const TABLES = [
  ['nightly', nightly.options],
  ['doctor', doctor.options],
  ['lock-check', lockCheck.options],
  ['cleanup', cleanup.options],
  ['serve', serve.options],
  ['target', target.options],
] as const;

/** Every option of the CLI, once: a run's, then each subcommand's own, then the two about the CLI's own output. */
const LAST = ['verbose', 'help'];
export const OPTIONS: readonly OptionSpec[] = [run.options, ...TABLES.map(([, t]) => t)]
  .flat()
  .filter((o, i, all) => all.findIndex((x) => x.name === o.name) === i)
  // A stable sort: the rest keep their order (docs/cli.md lists them in this order).
  .sort((a, b) => Number(LAST.includes(a.name)) - Number(LAST.includes(b.name)));
const ROW = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.name, o]));

/** Where an option belongs, for the refusal of one given elsewhere: "a test run and the nightly subcommand". */
function ownersOf(name: string): { words: string; only: string | null } {
  const inRun = run.options.some((o) => o.name === name);
  const subs = TABLES.filter(([, t]) => t.some((o) => o.name === name)).map(([cmd]) => cmd);
  const words = [
    ...(inRun ? ['a test run'] : []),
    ...(subs.length ? [`the ${subs.join('/')} subcommand${subs.length > 1 ? 's' : ''}`] : []),
  ].join(' and ');
  return { words, only: !inRun && subs.length === 1 ? subs[0] : null };
}

/** An option of another subcommand given to `command`: the refusal names where it belongs. */
function elsewhere(command: Subcommand) {
  return (name: string): HarnessError | null => {
    if (!ROW.has(name)) return null;
    const owners = ownersOf(name);
    return bad(
      `--${name} applies to ${owners.words}${command === 'run' || owners.only ? '' : `, not ${command}`}.`,
      owners.only ? `${CLI} ${owners.only} --${name}${ROW.get(name)!.kind === 'bool' ? '' : '=…'}` : undefined,
    );
  };
}

function deepFreeze<T>(o: T): Readonly<T> {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

function isPassThrough(command: Subcommand): command is PassThrough {
  return ['check', 'compare', 'repro', 'replay', 'shrink'].includes(command);
}

/**
 * argv (what follows `npm run jepsen --`) → the subcommand and a complete, frozen config of only the options it
 * takes (the seed chosen), or a HarnessError of kind `bad-arguments` (exit 254) before anything has started.
 */
export function parseCommandLine<const A extends readonly string[]>(
  argv: A,
  randomSeed: RandomSeed = cryptoSeed,
): Readonly<CommandConfig<CommandOf<A>>> {
  const first = argv[0];
  const command: Subcommand = first !== undefined && Object.hasOwn(COMMANDS, first) ? (first as Subcommand) : 'run';
  const context: ParseContext = { elsewhere: elsewhere(command), subcommands: Object.keys(COMMANDS), randomSeed };
  const spec: CommandSpec<CommandLine> = command === 'run' ? run : COMMANDS[command];
  const config = spec.parse(command === 'run' ? argv : argv.slice(1), context);
  // Every command that writes into or acts on the results folder; the pass-through commands take run folders instead.
  // From here on the folder is its resolved path: a link on the way is followed once, now, never again mid-run.
  if (!config.help && 'resultsDir' in config && !isPassThrough(command))
    (config as { resultsDir: string }).resultsDir = checkResultsFolder(config.resultsDir);
  return deepFreeze(config) as CommandConfig<CommandOf<A>>;
}

/** A test run's config from its argv (no subcommand): what the matrix, the benches and the tests build runs with. */
export function resolveConfig(argv: readonly string[], randomSeed: RandomSeed = cryptoSeed): Readonly<Config> {
  const config = parseCommandLine(argv, randomSeed);
  if (config.command !== 'run')
    throw bad(`"${config.command}" is a subcommand; a run's argv starts with its options (--lock=…).`);
  return config;
}

/** The options `command` takes, in the table's order (--help lists them; `check` has its own: check-options.ts). */
export function commandOptions(command: Exclude<Subcommand, PassThrough>): readonly OptionSpec[] {
  return command === 'run' ? run.options : COMMANDS[command].options;
}
