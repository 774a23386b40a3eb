import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { scenarioRun } from './scenario-config.ts';

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
});
