import type { AnyCluster, Cluster, ClusterSpec } from '../cluster/cluster.ts';
import type { Requirement } from '../cluster/provision.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { Journal } from '../history/journal.ts';
import type { ClockBoard } from '../nemesis/clock/clock-board.ts';
import type { ServerNet } from '../nemesis/server-partition/server-net.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import type { ClientTarget } from './client-specs.ts';

/**
 * Whose servers the run's lock uses: ours, booted for the run (our-servers.ts), or a target's, already running, with
 * only the resource's Postgres ours (target-servers.ts). The run starts, watches and ends either the same way
 * (start-servers.ts, run.ts); what differs is asked of this value, never of a flag.
 */
export interface RunServers {
  /** What this host must have for them besides Postgres (a target's servers run elsewhere: nothing). */
  readonly needs: readonly Requirement[];
  /** Hosts besides this one a proxy of ours may forward to. */
  readonly allowHosts: readonly string[];
  /** Once the run has its folder, before anything of it starts: their own teardown, registered first. */
  attach(runDir: string, shutdown: Shutdown): void;
  /** The cluster fencepost boots for the run. */
  spec(where: { clocks: ClockBoard | null; serverNet: ServerNet | null }): ClusterSpec;
  /** The run's cluster, over the one booted. */
  cluster(local: Cluster): AnyCluster;
  /** What the test record says of them. */
  record(): Pick<StoredTestJson, 'target'>;
  /** What the clients get besides the servers' endpoints (a target's key prefix and TLS). */
  clientTarget(): ClientTarget | undefined;
  /** From the clients' start: settles with the reason the run must end at once (a target's health), or never. */
  watch(journal: Journal): Promise<string>;
  /** Their normal end, once the clients stopped: what the test record gains, written. */
  end(test: StoredTestJson, runDir: string): Promise<void>;
}
