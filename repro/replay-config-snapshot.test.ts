import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveSeed } from '../common/random.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { scenarioRun } from '../scenario/scenario-config.ts';
import { readScenarioFile, type Scenario } from '../scenario/scenario-file.ts';
import { parseArgv } from '../harness/option-table.ts';
import { REPLAY_OPTIONS } from '../harness/reproduce-options.ts';
import { passedOnOf, replayBase, replayOptionsOf, replayRunConfig, type ReplayRunOptions } from './replay-command.ts';
import { replayInput } from './replay-input.ts';

/**
 * The Config every scripted run starts with — a `--scenario` run's, and each of a replay's runs' — for a spread of
 * command lines and scenario options, with the refusals a scenario's options meet: captured from main as it built
 * them by argv (`__snapshots__/replay-config.txt`), so building them typed cannot change one field of a run or its
 * record.
 */
const RESULTS = '/tmp/fencepost-replay-config-snapshot';
afterAll(() => fs.rmSync(RESULTS, { recursive: true, force: true }));

/** One line per Config (the checkout's own path as `<checkout>`, so the text is the same in any clone). */
const line = (title: string, config: Readonly<Config>) => [
  `## ${title}`,
  JSON.stringify(config).replaceAll(process.cwd(), '<checkout>'),
];

async function scenarioLines(title: string, file: string, argv: readonly string[], scenario?: Scenario) {
  try {
    const base = resolveConfig([...argv, `--results=${RESULTS}`], () => 77);
    return line(`scenario ${title}`, (await scenarioRun(file, base, scenario)).config);
  } catch (err) {
    return [`## scenario ${title}`, `refused: ${(err as Error).message}`];
  }
}

async function replayLines(title: string, file: string, options: ReplayRunOptions) {
  const input = await replayInput(file);
  const base = replayBase(input.file, options);
  const lines = line(`replay ${title}: base`, base);
  for (let i = 0; i < 2; i++) {
    const seed = deriveSeed(base.seed, { purpose: 'replay-run', run: i });
    const config = replayRunConfig(base, seed);
    lines.push(...line(`replay ${title}: run ${i}`, (await scenarioRun(input.file, config, input.scenario)).config));
  }
  return lines;
}

/** What `replay`'s command line passes on to its runs, parsed as the command parses it. */
function typed(args: readonly string[]): ReplayRunOptions {
  const { values, spelled } = parseArgv([...args, `--results=${RESULTS}`], REPLAY_OPTIONS, { words: 'collect' });
  return passedOnOf(values, spelled);
}

/** The scenario in `file` with other options, as a scenario file could give them. */
function withOptions(file: string, options: Scenario['options']): Scenario {
  const read = readScenarioFile(file);
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return { ...read.scenario, options };
}

describe("a scripted run's config", () => {
  it('is the one main built, for --scenario and for each replay run', async () => {
    const paused = 'scenarios/paused-holder.json';
    const lines: string[] = [];
    for (const f of fs.readdirSync('scenarios').sort())
      lines.push(...(await scenarioLines(f, `scenarios/${f}`, [`--scenario=scenarios/${f}`])));
    lines.push(
      ...(await scenarioLines('space forms', paused, ['--scenario', paused, '--ttl', '900', '--seed', '4'])),
      ...(await scenarioLines('lock given', 'scenarios/restart-empty.json', [
        '--lock=redlock',
        '--scenario=scenarios/restart-empty.json',
        '--watchdog',
        '--retry=harness',
        '--think=300',
        '--ttl=1500',
      ])),
      ...(await scenarioLines('options', paused, [`--scenario=${paused}`, '--fencing', '--backend=docker'], {
        ...withOptions(paused, {
          ttl: '1200',
          think: 40,
          fencing: false,
          watchdog: true,
          'redis-persistence': 'aof-always',
          'restart-delay': 700,
        }),
      })),
      ...(await scenarioLines('no value', paused, [`--scenario=${paused}`], withOptions(paused, { ttl: true }))),
      ...(await scenarioLines('bad value', paused, [`--scenario=${paused}`], withOptions(paused, { ttl: '2s' }))),
      ...(await scenarioLines('out of bounds', paused, [`--scenario=${paused}`], withOptions(paused, { ttl: 5 }))),
      ...(await scenarioLines('bad flag', paused, [`--scenario=${paused}`], withOptions(paused, { fencing: 'yes' }))),
      ...(await replayLines('a night', paused, replayOptionsOf({ seed: 9, resultsDir: RESULTS }))),
      ...(await replayLines(
        'space forms',
        'scenarios/failover.json',
        typed(['--seed', '5', '--ttl', '900', '--fencing']),
      )),
      ...(await replayLines(
        'lock given',
        'scenarios/delayed-write.json',
        typed(['--lock=etcd', '--seed=3', '--seed=8']),
      )),
    );
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/replay-config.txt');
  });
});
