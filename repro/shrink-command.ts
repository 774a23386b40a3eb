import fs from 'node:fs';
import path from 'node:path';
import { CLI } from '../common/cli-name.ts';
import { EXIT } from '../common/exit-codes.ts';
import { deriveSeed } from '../common/random.ts';
import { walkArgv } from '../common/walk-argv.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { describeSignature, failureSignature, sameSignature, shotIndex } from '../checkers/failure-signature.ts';
import { bad, parseArgv } from '../harness/option-table.ts';
import { SHRINK_OPTIONS } from '../harness/reproduce-options.ts';
import { readRunArgv, resolvedRun, RUN_OPTIONS, runOf, type Config } from '../harness/run-argv.ts';
import { cryptoSeed } from '../harness/options.ts';
import { argvOf, optionValuesOf, spelledOf, type RunOverrides } from '../harness/run-overrides.ts';
import { runTest } from '../harness/run.ts';
import { runNeeds } from '../nemesis/fault-registry.ts';
import { shortestUsefulRunS } from '../nemesis/schedule.ts';
import { readRunHistory, runLogFile, writeJson } from '../store/run-dir.ts';
import { shellQuote } from '../store/rerun-line.ts';
import { readFailingRun } from './failing-run.ts';
import { reproduce } from './repro-command.ts';
import { shrink, type ShrinkDims, type ShrinkResult } from './shrink-search.ts';
import { rateText, wilson } from './wilson.ts';

export const SHRINK_USAGE = `usage: ${CLI} shrink <run-dir> [--tries=5] [--keep=4] [--budget=600] [--seed=<n>]

Reduces a failing run's configuration — clients, accounts, fault kinds, shots, duration, think time — running each
candidate --tries times (each ending at its first lost update) and keeping it while at least --keep of them fail with
the original's signature. Prints a line per candidate, stops at --budget seconds, then prints and saves the smallest
configuration with its reproduction rate (<run-dir>/shrink/shrink.json) and writes its repro bundle there.`;

/** The options a candidate sets itself; the original's own values of them are dropped from its argv. */
const SHRUNK = [
  'concurrency',
  'accounts',
  'nemesis',
  'shots',
  'time-limit',
  'think',
  'seed',
  'results',
  'stop-on-lost-update',
  'lock',
];

export async function shrinkCommand(args: readonly string[], shutdown: Shutdown): Promise<number> {
  const { values: v, words } = parseArgv(args, SHRINK_OPTIONS, { words: 'collect' });
  if (v.help) {
    console.log(SHRINK_USAGE);
    return EXIT.valid;
  }
  if (words.length !== 1) throw bad(`shrink takes one run folder, got ${words.length}.`, SHRINK_USAGE.split('\n')[0]);
  if (v.keep > v.tries) throw bad(`--keep=${v.keep} is more than --tries=${v.tries}.`);
  const runDir = words[0];
  const run = readFailingRun(runDir, 'shrink');
  const signature = failureSignature(run.results, shotIndex(run.ops))!;
  const c = run.test.config;
  const faults = [...run.test.faults] as FaultName[];
  const original: ShrinkDims = {
    concurrency: c.concurrency,
    accounts: c.accounts,
    faults,
    shots: c.maxShots ?? null,
    timeLimitS: c.timeLimitS,
    thinkMs: c.thinkMs,
  };
  const seed = v.seed ?? run.test.seed;
  const t0 = performance.now();
  console.error(
    `shrink: ${runDir}: ${describeSignature(signature)}; ${v.tries} runs per candidate, kept at ${v.keep}; budget ${v.budget} s; seed ${seed}`,
  );
  const result = await shrink(original, {
    tries: v.tries,
    keep: v.keep,
    budgetMs: v.budget * 1000,
    floors: (d) => ({
      concurrency: Math.min(2, c.concurrency),
      accounts: 1,
      shots: 1,
      timeLimitS: Math.max(5, shortestUsefulRunS(d.faults, { intervalMs: c.nemesisIntervalMs, pauseMs: c.pauseMs })),
      thinkMs: runNeeds(d.faults).minSectionMs({ ttlMs: c.ttlMs }),
    }),
    originalShots: Object.values(run.results.faultHits ?? {}).reduce((n, h) => n + h.fired, 0),
    storyFault: signature.story,
    now: () => performance.now() - t0,
    progress: (line) => console.error(line),
    run: async (dims, candidate, attempt) => {
      const config = candidateConfig(run.test.argv, {
        ...candidateOptions(run.test.lock, dims),
        seed: deriveSeed(seed, { purpose: 'shrink-run', candidate, run: attempt }),
        resultsDir: v.results,
      });
      const lines: string[] = [];
      const outcome = await runTest(config, shutdown, (l) => lines.push(l));
      fs.writeFileSync(runLogFile(outcome.runDir, 'harness'), `${lines.join('\n')}\n`);
      const got = failureSignature(outcome.results, shotIndex(readRunHistory(outcome.runDir).history.ops));
      return { reproduced: sameSignature(got, signature), runDir: outcome.runDir };
    },
  });
  return report(runDir, run.test.lock, seed, result);
}

/** The options of a candidate configuration, typed (its run's, and the line that runs it). */
export function candidateOptions(lock: string, d: ShrinkDims): RunOverrides {
  return {
    lock,
    concurrency: d.concurrency,
    accounts: d.accounts,
    nemesis: d.faults,
    ...(d.shots !== null ? { maxShots: d.shots } : {}),
    timeLimitS: d.timeLimitS,
    thinkMs: d.thinkMs,
    stopOnLostUpdate: true,
  };
}

/**
 * A candidate's Config: the stored run's own options but those the candidate sets (read from its argv, a record,
 * as the command line is read), then the candidate's, typed — never rendered to an argv and parsed back.
 */
export function candidateConfig(stored: readonly string[], own: RunOverrides): Readonly<Config> {
  const { values, spelled } = readRunArgv(unshrunkArgv(stored), { elsewhere: () => null, subcommands: [] });
  return resolvedRun(runOf({ ...values, ...optionValuesOf(own) }, [...spelled, ...spelledOf(own)], cryptoSeed));
}

/** Print and save the smallest configuration with its rate, and bundle its first reproducing run. */
async function report(runDir: string, lock: string, seed: number, r: ShrinkResult): Promise<number> {
  const dir = path.join(runDir, 'shrink');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const rate = wilson(r.rate.k, r.rate.n);
  const command = [CLI, ...argvOf(candidateOptions(lock, r.smallest)).map(shellQuote)].join(' ');
  let bundle: string | null = null;
  if (r.reproducingRuns.length) bundle = (await reproduce(r.reproducingRuns[0], dir)).bundle.dir;
  writeJson(path.join(dir, 'shrink.json'), { seed, ...r, rateInterval: rate, command, bundle });
  const lines = [
    '',
    r.stoppedBy === 'not-recurring'
      ? `  shrink: the original configuration reproduced only ${r.candidates[0].reproduced}/${r.candidates[0].tries}${r.candidates[1] ? ` and ${r.candidates[1].what.split(' → ')[1]} alone ${r.candidates[1].reproduced}/${r.candidates[1].tries}` : ''}: below the keep rule — a failure that does not recur cannot be shrunk`
      : `  shrink: smallest configuration ${rateText(rate)} — ${r.candidates.length} candidates, ${r.candidates.reduce((n, c) => n + c.tries, 0)} runs, ${(r.elapsedMs / 60_000).toFixed(1)} min${r.stoppedBy === 'budget' ? ' (the budget ran out)' : ''}`,
    `  from: clients ${r.original.concurrency}, accounts ${r.original.accounts}, faults ${r.original.faults.join(',')}, shots ${r.original.shots ?? 'unlimited'}, ${r.original.timeLimitS} s, think ${r.original.thinkMs} ms`,
    `  to:   clients ${r.smallest.concurrency}, accounts ${r.smallest.accounts}, faults ${r.smallest.faults.join(',')}, shots ${r.smallest.shots ?? 'unlimited'}, ${r.smallest.timeLimitS} s, think ${r.smallest.thinkMs} ms`,
    `  run it: ${command}`,
    ...(bundle ? [`  bundle: ${bundle}/   replay: ${CLI} replay ${shellQuote(bundle)}`] : []),
    `  saved: ${path.join(dir, 'shrink.json')}`,
  ];
  console.log(lines.join('\n'));
  return r.stoppedBy === 'not-recurring' ? EXIT.unknown : EXIT.valid;
}

/**
 * The original run's argv without the options a candidate sets itself, each dropped with its value however it was
 * spelled: walked once, by the run's table, so a flag takes no value (`--stop-on-lost-update --watchdog` once lost
 * its `--watchdog` as if it were the flag's value).
 */
export function unshrunkArgv(argv: readonly string[]): string[] {
  const shrunk = (name: string) => (SHRUNK as readonly string[]).includes(name);
  return walkArgv(argv, takesValue).flatMap((item) =>
    'word' in item ? [item.word] : shrunk(item.name) ? [] : [...item.argv],
  );
}

/** Whether a run option takes a value (a stored argv's option this version lacks: as if it did). */
const takesValue = (name: string) => RUN_OPTIONS.find((o) => o.name === name)?.kind !== 'bool';
