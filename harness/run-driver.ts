import type { Journal } from '../history/journal.ts';
import type { Nemesis, NemesisEnv } from '../nemesis/nemesis.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import type { ClientPool } from './client-pool.ts';
import type { Config } from './run-argv.ts';

/**
 * What drives a run instead of the free-running clients and the fault schedule: a scripted scenario
 * (scenario/scenario-run.ts). Everything else — provisioning, the cluster, the resource, the proxies, the journal,
 * the teardown, the checkers and the report — is the run's own (harness/run.ts), so a driven run is checked and
 * reported as any other.
 */
export interface RunDriver {
  /** The clients' specs as the driver runs them (driven: a step at a time). */
  specs(specs: ClientSpec[]): ClientSpec[];
  /** The nemesis it strikes with (set up, healed and swept by the run as any nemesis). */
  nemesis(env: NemesisEnv): Nemesis;
  /** Runs the clients until the driver is done; what it returns goes into the test record. */
  drive(run: DrivenRun): Promise<Partial<StoredTestJson>>;
}

/** What a driver gets of the run it drives. */
export interface DrivenRun {
  config: Readonly<Config>;
  journal: Journal;
  pool: ClientPool;
  nemesis: Nemesis;
  log(line: string): void;
}
