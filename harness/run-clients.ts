import type { Journal } from '../history/journal.ts';
import type { Nemesis } from '../nemesis/nemesis.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import type { ClientPool } from './client-pool.ts';
import type { LiveStats } from './live-stats.ts';
import type { Config } from './run-argv.ts';

/** What the clients' part of a run works with. */
export interface ClientsPhaseEnv {
  config: Readonly<Config>;
  journal: Journal;
  pool: ClientPool;
  nemesis: Nemesis;
  stats: LiveStats;
  log: (line: string) => void;
  /** Settles with the reason the run must end at once (a target's health: RunServers.watch), or never. */
  aborted: Promise<string>;
}

/**
 * How the run's clients are driven: free for the time limit (free-clients.ts), or a step at a time by a scenario's
 * driver (driven-clients.ts). Everything around them — servers, history, nemesis, teardown — is the run's own.
 */
export interface RunClients {
  /** The clients' specs as they run. */
  specs(specs: ClientSpec[]): ClientSpec[];
  /** Runs them to their end (the nemesis stopped); what the test record gains from it. */
  run(env: ClientsPhaseEnv): Promise<Partial<StoredTestJson>>;
}
