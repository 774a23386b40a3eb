import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI } from '../common/cli-name.ts';
import { EXIT } from '../common/exit-codes.ts';
import { deriveSeed } from '../common/random.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { bad, parseArgv, type OptionValues, type SpelledOption } from '../harness/option-table.ts';
import { resolvedRun, runOf, type Config, type RunOptionValues, type RunSpelling } from '../harness/run-argv.ts';
import { optionValuesOf, spelledOf, type RunOverrides } from '../harness/run-overrides.ts';
import { cryptoSeed } from '../harness/options.ts';
import { runDefaults } from '../harness/typed-run.ts';
import { runScenario } from '../scenario/scenario-command.ts';
import { REPLAY_OPTIONS, REPLAY_RUNS } from '../harness/reproduce-options.ts';
import { runLogFile, writeJson } from '../store/run-dir.ts';
import { runTimestamp } from '../store/results-store.ts';
import { describeExpect } from '../scenario/scenario-expect.ts';
import { judgeReplayRun, replaySummary, type ReplayRun } from './replay-tally.ts';
import { removeUnpacked, replayInput, type ReplayInput } from './replay-input.ts';
import { untrustedCode } from './bundle-code.ts';

export const REPLAY_USAGE = `usage: ${CLI} replay <bundle folder | bundle .tgz | scenario.json> [--runs=${REPLAY_RUNS}] [--lock=…] [--fencing] [run options]

Runs the scripted scenario --runs times against fresh servers, each run checked and reported like any run, and
prints its reproduction rate with a Wilson 95 % interval. A run counts as reproducing only when its failure has the
expected signature (which checker, which anomaly, which fault's story) — or, for a scenario that expects a
lost-replies finding, when the run shows that finding (VALID or not); for one that expects "clean", when it shows
no failure and no such finding. Runs that could not follow their script are counted apart: they are evidence
neither way. Exit 1 when a followed run failed, 0 when none did, 2 when no
run could follow its script.`;

/** `replay …`: the exit code (1: it still fails; 0: it no longer does; 2: nothing followed its script). */
export async function replayCommand(args: readonly string[], shutdown: Shutdown): Promise<number> {
  const { values, words, spelled } = parseArgv(args, REPLAY_OPTIONS, { words: 'collect' });
  if (values.help) {
    console.log(REPLAY_USAGE);
    return EXIT.valid;
  }
  if (words.length !== 1)
    throw bad(`replay takes one bundle or scenario, got ${words.length}.`, REPLAY_USAGE.split('\n')[0]);
  const input = await replayInput(words[0]);
  // However the replay ends — done, refused, Ctrl-C — what a .tgz unpacked goes (audit R12).
  const unpacked = shutdown.add('remove the unpacked bundle', () => removeUnpacked(input));
  try {
    const passedOn = passedOnOf(values, spelled);
    // --lock on the command line replaces the bundle's lock: then none of its code is loaded.
    if (!passedOn.spelled.some((s) => s.name === 'lock')) {
      const refused = untrustedCode(input, { trusted: values['trust-bundle-code'], user: os.userInfo().username });
      if (refused) throw refused;
    }
    const { runs, summary } = await replay(input, passedOn, values.runs, shutdown, (l) => console.error(l));
    console.log(summary.text);
    if (runs.some((r) => r.followed && r.verdict === false)) return EXIT.invalid;
    return runs.some((r) => r.followed) ? EXIT.valid : EXIT.unknown;
  } finally {
    await unpacked.run();
  }
}

/**
 * The run options a replay passes on to its runs — its command line's, or a night's own — typed, and as spelled:
 * its runs' Configs are built from them, never from an argv parsed back.
 */
export interface ReplayRunOptions {
  readonly values: Partial<RunOptionValues>;
  readonly spelled: readonly RunSpelling[];
}

/** What the command line passes on to the runs: its run options, as given (the replay's own, --runs and the trust, not). */
export function passedOnOf(
  values: OptionValues<typeof REPLAY_OPTIONS>,
  spelled: readonly SpelledOption<(typeof REPLAY_OPTIONS)[number]['name']>[],
): ReplayRunOptions {
  const run = spelled.filter((s) => s.name !== 'runs' && s.name !== 'trust-bundle-code');
  // The casts: every other row of REPLAY_OPTIONS is a run's own row (reproduce-options.ts), read alike.
  const given = Object.fromEntries(run.map((s) => [s.name, values[s.name]])) as Partial<RunOptionValues>;
  return { values: given, spelled: run as RunSpelling[] };
}

/** Typed options passed on as the command line would spell them (`{ seed: 5 }`: `--seed=5`). */
export function replayOptionsOf(options: RunOverrides): ReplayRunOptions {
  return { values: optionValuesOf(options), spelled: spelledOf(options) };
}

/**
 * `n` scripted runs of the input's scenario with the run options passed on (`run`), each seeded from one base seed,
 * each judged (replay-tally.ts); the summary printed and saved under <results>/replays/.
 */
export async function replay(
  input: ReplayInput,
  run: ReplayRunOptions,
  n: number,
  shutdown: Shutdown,
  progress: (line: string) => void,
): Promise<{ runs: ReplayRun[]; summary: ReturnType<typeof replaySummary> & { file: string } }> {
  // Checked once, before the first run: a scenario the lock cannot take is a 254 with nothing started.
  const base = replayBase(input.file, run);
  const lock = replayLock(input, base);
  const own = input.code.length && lock === input.lock ? ` (the bundle's own code, trusted)` : '';
  progress(
    `replay: ${input.name}: ${n} runs with --lock=${lock}${own}${base.fencing ? ' --fencing' : ''}, expecting ${describeExpect(input.expect)}`,
  );
  const runs: ReplayRun[] = [];
  for (let i = 0; i < n; i++) {
    const seed = deriveSeed(base.seed, { purpose: 'replay-run', run: i });
    const config = replayRunConfig(base, seed);
    const lines: string[] = [];
    const outcome = await runScenario(input.file, config, shutdown, {
      scenario: input.scenario,
      log: (l) => lines.push(l),
    });
    fs.writeFileSync(runLogFile(outcome.runDir, 'harness'), `${lines.join('\n')}\n`);
    const run = judgeReplayRun(outcome.runDir, input);
    runs.push(run);
    progress(
      `replay: run ${i + 1}/${n}: ${run.line} — ${path.relative(process.cwd(), outcome.runDir) || outcome.runDir}`,
    );
  }
  // The summary names the lock the runs loaded, as the first line does (it once said --lock's default, redlock).
  const summary = replaySummary(input, { lock, fencing: base.fencing, seed: base.seed }, runs);
  const dir = path.join(base.resultsDir, 'replays', `${input.name}-${runTimestamp(new Date())}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'summary.json');
  writeJson(file, summary.json);
  return { runs, summary: { ...summary, text: `${summary.text}\n  summary: ${file}`, file } };
}

/** The lock the runs load (audit R21): the command line's, else the bundle's or the scenario's — not --lock's default. */
export function replayLock(
  input: Pick<ReplayInput, 'lock' | 'scenario'>,
  base: Pick<Readonly<Config>, 'lock' | 'spelled'>,
): string {
  return givenOf(base).some((s) => s.name === 'lock') ? base.lock : (input.lock ?? input.scenario.lock ?? base.lock);
}

/**
 * The command line's options of a replay: `base`'s, resolved with the scenario appended last, all but that one, as
 * the user spelled them.
 */
const givenOf = (base: Pick<Readonly<Config>, 'spelled'>) => base.spelled.slice(0, -1);

/** The replay's own Config: the options passed on, then the scenario, last (as givenOf reads them). */
export function replayBase(file: string, run: ReplayRunOptions): Readonly<Config> {
  const scenario: RunSpelling = { name: 'scenario', argv: [`--scenario=${file}`] };
  return resolvedRun(
    runOf({ ...runDefaults(), ...run.values, scenario: file }, [...run.spelled, scenario], cryptoSeed),
  );
}

/**
 * One replay run's Config: the replay's options with the run's own seed in place of the given one. By option, not by
 * argument: `--seed 5` once left its `5` behind, which the run's parse refused as a stray word.
 */
export function replayRunConfig(base: Readonly<Config>, seed: number): Readonly<Config> {
  const kept = givenOf(base).filter((s) => s.name !== 'seed');
  const spelled = [...kept, ...spelledOf({ seed }), base.spelled.at(-1)!];
  return resolvedRun(runOf({ ...base.options, seed }, spelled, cryptoSeed));
}
