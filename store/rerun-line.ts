import { CLI } from '../common/cli-name.ts';

/**
 * The line that reruns a run (not the `replay` subcommand, which replays a bundle): its own argv with the seed it
 * actually used, even when the user let the harness choose one (fast-check's rule: a failure prints what replays
 * it). The console's closing summary and the report both print it, so it has one owner: a `--seed 5` (space form)
 * once came out of the console as `… 5 --seed=5`, which the CLI refuses.
 */
export function rerunLine(run: { argv: readonly string[]; lock: string; seed: number | null }): string {
  const args: string[] = [];
  for (let i = 0; i < run.argv.length; i++) {
    const a = run.argv[i];
    if (a.startsWith('--seed=')) continue;
    if (a === '--seed') {
      i++;
      continue;
    }
    args.push(a);
  }
  if (!args.some((a) => a === '--lock' || a.startsWith('--lock=')) && run.lock !== 'unknown')
    args.unshift(`--lock=${run.lock}`);
  if (run.seed !== null) args.push(`--seed=${run.seed}`);
  return [CLI, ...args.map(shellQuote)].join(' ');
}

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
