import type { NemesisEnv } from '../nemesis/nemesis.ts';
import type { RunClients } from './run-clients.ts';
import type { RunDriver } from './run-driver.ts';

/** Clients a scenario's driver takes a step at a time (scenario/scenario-run.ts); the servers' watch is not its. */
export function drivenClients(driver: RunDriver): RunClients {
  return {
    specs: (specs) => driver.specs(specs),
    run: ({ config, journal, pool, nemesis, log }) => driver.drive({ config, journal, pool, nemesis, log }),
  };
}

/** The nemesis of a scenario: its script's strikes, set up, healed and swept by the run as any nemesis. */
export function scriptedNemesis(driver: RunDriver) {
  return (env: NemesisEnv) => driver.nemesis(env);
}
