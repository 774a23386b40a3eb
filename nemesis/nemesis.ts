import type { Cluster } from '../harness/backends/cluster.ts';
import type { ClientPool } from '../harness/client-pool.ts';
import type { Journal } from '../harness/history/journal.ts';
import type { Config } from '../harness/options.ts';
import type { ClockBoard } from './clock/clock-board.ts';
import type { TcpProxy } from './proxy/tcp-proxy.ts';
import type { FaultName } from './fault-names.ts';
import type { LockServerCounts } from './lock-servers.ts';

/** What a nemesis may act on. Built by the run orchestrator. */
export interface NemesisEnv {
  config: Readonly<Config>;
  /** The resolved fault list (the strategy's defaults when --nemesis wasn't given). */
  faults: FaultName[];
  /** The strategy's servers (its declaration, resolved once by the run): what lock-aimed faults strike. */
  servers: LockServerCounts;
  cluster: Cluster;
  clients: ClientPool;
  /**
   * Client↔server proxies by node name (`redis[0]`, `etcd[1]`, `zk[2]`, `pg`, `redis-primary`, …). The nemesis
   * adds its own (`redis-replication`, the failover pair's replication link) so the run closes it with the rest.
   */
  proxies: Map<string, TcpProxy>;
  journal: Journal;
  /** Per-process wall-clock offsets, when the run has clock faults (null otherwise: nothing is preloaded). */
  clocks: ClockBoard | null;
  log: (line: string) => void;
}

/**
 * Contract (Jepsen's Nemesis): `setup` heals anything a previous run may have left (nothing paused, clocks
 * at 0, proxies open); `run` injects faults on its schedule until the signal aborts, recording each fault's
 * start and end as `nemesis` ops; `heal` undoes every fault still active and is safe to call at any time,
 * more than once, including from a signal handler.
 */
export interface Nemesis {
  /** Faults of the run's list that do not apply to it (restart-empty without Redis, …), with why: never injected. */
  readonly skipped: Readonly<Record<string, string>>;
  setup(): Promise<void>;
  run(signal: AbortSignal): Promise<void>;
  heal(): Promise<void>;
}
