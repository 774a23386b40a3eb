import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { scenarioRun } from './scenario-config.ts';
import { readScenarioFile, type Scenario } from './scenario-file.ts';

function pausedHolderWith(options: Scenario['options']): Scenario {
  const read = readScenarioFile('scenarios/paused-holder.json');
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return { ...read.scenario, options };
}

/** A scenario's config from the command line's options, read by option however the user spelled them. */
describe("a scenario run's config", () => {
  it("takes the user's options over the scenario's, space forms too, and keeps their command line", async () => {
    const argv = ['--scenario', 'scenarios/paused-holder.json', '--ttl', '900', '--seed', '4'];
    const { config } = await scenarioRun('scenarios/paused-holder.json', resolveConfig(argv));
    expect(config).toMatchObject({ ttlMs: 900, seed: 4, accounts: 1, argv, scenario: 'scenarios/paused-holder.json' });
  });

  it('refuses an option the script decides, however it was spelled', async () => {
    const base = resolveConfig(['--scenario=scenarios/paused-holder.json', '--concurrency', '3']);
    await expect(scenarioRun('scenarios/paused-holder.json', base)).rejects.toThrow(
      "--concurrency with --scenario: the script's clients, faults and steps decide them",
    );
  });

  it("reads the scenario's own options as their rows do: a flag, false as not given, a number as text", async () => {
    const scenario = pausedHolderWith({
      ttl: '1500',
      fencing: true,
      watchdog: false,
      'redis-persistence': 'aof-always',
    });
    const base = resolveConfig(['--scenario=scenarios/paused-holder.json', '--seed=2']);
    const { config } = await scenarioRun('scenarios/paused-holder.json', base, scenario);
    expect(config).toMatchObject({ ttlMs: 1500, fencing: true, watchdog: false, redisPersistence: 'aof-always' });
  });

  it('refuses a value option given as a bare flag, as the command line would', async () => {
    const base = resolveConfig(['--scenario=scenarios/paused-holder.json', '--seed=2']);
    await expect(scenarioRun('scenarios/paused-holder.json', base, pausedHolderWith({ ttl: true }))).rejects.toThrow(
      '--ttl needs a value.',
    );
  });
});
