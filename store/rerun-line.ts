import { CLI } from '../common/cli-name.ts';
import { walkArgv, type ArgvItem } from '../common/walk-argv.ts';

/**
 * The line that reruns a run (not the `replay` subcommand, which replays a bundle): its own argv with the seed it
 * actually used, even when the user let the harness choose one (fast-check's rule: a failure prints what replays
 * it). The console's closing summary and the report both print it, so it has one owner: a `--seed 5` (space form)
 * once came out of the console as `… 5 --seed=5`, which the CLI refuses.
 */
export function rerunLine(run: { argv: readonly string[]; lock: string; seed: number | null }): string {
  // Only --seed's value is dropped with it: every other argument is kept as it is, whatever the option.
  const items = walkArgv(run.argv, (name) => name === 'seed');
  const args = items.filter((item) => !('name' in item && item.name === 'seed')).flatMap((i) => argvOf(i));
  if (!items.some((item) => 'name' in item && item.name === 'lock') && run.lock !== 'unknown')
    args.unshift(`--lock=${run.lock}`);
  if (run.seed !== null) args.push(`--seed=${run.seed}`);
  return [CLI, ...args.map(shellQuote)].join(' ');
}

const argvOf = (item: ArgvItem): readonly string[] => ('word' in item ? [item.word] : item.argv);

/**
 * The command that turns a failing run into a reproduction anyone can run (repro/repro-command.ts): printed by the
 * closing summary and the report of every run whose verdict is INVALID.
 */
export function reproLine(runDir: string): string {
  return `${CLI} repro ${shellQuote(runDir)}`;
}

export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\-=.,/:@%+]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
