import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { isPathRef, lockRef } from '../workloads/lock-ref.ts';
import { EXECUTORS } from '../nemesis/fault-registry.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import {
  resolvedRun,
  RUN_OPTIONS,
  runOf,
  type Config,
  type RunOptionValues,
  type RunSpelling,
} from '../harness/run-argv.ts';
import { givenValue } from '../harness/option-table.ts';
import { optionValuesOf, spelledOf, type RunOverrides } from '../harness/run-overrides.ts';
import { withEnsembleSizes } from '../harness/strategy-options.ts';
import { readScenarioFile, type Scenario } from './scenario-file.ts';
import { serverProblems } from './script-order.ts';

/** A script's outer bound, as its run's time limit: each step has its own, far shorter (scenario-run.ts). */
export const SCRIPT_LIMIT_S = 600;

/** Run options a scenario decides itself: given beside --scenario they are refused. */
const SCRIPT_OWNS = ['concurrency', 'nemesis', 'time-limit', 'accounts', 'stop-on-lost-update', 'nemesis-interval'];

/** A problem with a scenario: exit 254, naming the file, nothing started. */
export function badScenario(file: string, problems: readonly string[]): HarnessError {
  return new HarnessError('bad-arguments', `scenario ${file}: ${problems.join('; ')}`, {
    hint: 'see docs/reproductions.md for the step lines and the fields of a scenario file',
  });
}

/**
 * The scenario in `file`, checked against the lock it will run with (its servers, the faults it can take), and the
 * run's config: the command line's options over the scenario's own, the script's clients and faults, one account.
 * Any problem is a 254 naming the file, before anything starts.
 */
export async function scenarioRun(
  file: string,
  base: Readonly<Config>,
  scenarioIn?: Scenario,
): Promise<{ scenario: Scenario; config: Readonly<Config> }> {
  const read = scenarioIn ? { scenario: scenarioIn } : readScenarioFile(file);
  if ('problems' in read) throw badScenario(file, read.problems);
  const { scenario } = read;
  const given = new Set<string>(base.spelled.map((s) => s.name));
  const clash = SCRIPT_OWNS.filter((o) => given.has(o));
  if (clash.length)
    throw badScenario(file, [
      `${clash.map((o) => `--${o}`).join(', ')} with --scenario: the script's clients, faults and steps decide them`,
    ]);
  const lock = given.has('lock') ? base.lock : scenarioLock(scenario.lock, file);
  if (!lock) throw badScenario(file, ['it names no lock: give one with --lock=<lock>']);
  const strategy = withEnsembleSizes(base, await loadStrategy(lock));
  const problems = serverProblems(scenario.steps, strategy.servers, lock);
  for (const f of scenario.faults) {
    const why = EXECUTORS[f].refusal(strategy.servers, lock);
    if (why) problems.push(`${f} cannot act on --lock=${lock}: ${why}`);
  }
  if (problems.length) throw badScenario(file, problems);
  const own = scriptOptions(Object.fromEntries(Object.entries(scenario.options).filter(([k]) => !given.has(k))));
  const script: RunOverrides = {
    ...(given.has('lock') ? {} : { lock }),
    concurrency: scenario.clients.length,
    nemesis: scenario.faults,
    accounts: 1,
    timeLimitS: SCRIPT_LIMIT_S,
    ...(given.has('seed') ? {} : { seed: base.seed }),
  };
  // Typed, as a matrix cell is built: the user's options but --scenario (the run is not a scenario's twice), the
  // script's own options, then what the script decides; the command line's refusals apply as to a typed-in one.
  const config = resolvedRun(
    runOf(
      { ...base.options, scenario: undefined, ...own.values, ...optionValuesOf(script) },
      [...base.spelled.filter((s) => s.name !== 'scenario'), ...own.spelled, ...spelledOf(script)],
      () => base.seed,
    ),
  );
  // The record keeps the user's own command line (its replay line); the script has no think time to widen.
  return {
    scenario,
    config: Object.freeze({ ...config, argv: [...base.argv], spelled: base.spelled, thinkGiven: true, scenario: file }),
  };
}

/**
 * A scenario's own options, typed as their rows read them (a value is checked and refused as `--name=value` would
 * be) and spelled so: read from the file's values once, never rendered to an argv to parse back.
 */
function scriptOptions(options: Scenario['options']): { values: Partial<RunOptionValues>; spelled: RunSpelling[] } {
  const values: Record<string, unknown> = {};
  const spelled: RunSpelling[] = [];
  for (const [name, raw] of Object.entries(options)) {
    const row = RUN_OPTIONS.find((o) => o.name === name);
    // The file's reader admits only the scenario's options (SCENARIO_OPTIONS), every one a run's row.
    if (!row) throw new Error(`a scenario's option ${name} is no run option`);
    const got = givenValue(row, raw);
    if (!got) continue;
    values[name] = got.value;
    spelled.push(got.spelled as RunSpelling);
  }
  return { values: values as Partial<RunOptionValues>, spelled };
}

/**
 * A scenario's own lock: a built-in name as it is; a path (a plugin, a manifest, an exec: program) relative to the
 * scenario file, so a scenario travels with its lock (a bundle's lock/ folder).
 */
function scenarioLock(lock: string | null, file: string): string | null {
  if (!lock) return null;
  const dir = path.dirname(path.resolve(file));
  const ref = lockRef(lock);
  if (ref.kind === 'exec') return `exec:${path.resolve(dir, ref.program)}`;
  return isPathRef(ref) ? path.resolve(dir, ref.path) : lock;
}
