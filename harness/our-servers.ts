import type { ClusterSpec } from '../cluster/cluster.ts';
import { runTiming } from '../common/run-timing.ts';
import type { ClockBoard } from '../nemesis/clock/clock-board.ts';
import type { RunNeeds } from '../nemesis/fault-registry.ts';
import type { ServerNet } from '../nemesis/server-partition/server-net.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { Config } from './run-argv.ts';
import type { RunServers } from './run-servers.ts';

/** The lock's servers booted by fencepost for the run, as its strategy declares them. */
export function ourServers(strategy: ResolvedStrategy, config: Readonly<Config>, faultNeeds: RunNeeds): RunServers {
  return {
    needs: strategy.needs,
    allowHosts: [],
    attach: () => {},
    spec: ({ clocks, serverNet }) => clusterSpecFor(strategy, config, faultNeeds, clocks, serverNet),
    cluster: (local) => local,
    record: () => ({}),
    clientTarget: () => undefined,
    watch: () => new Promise<never>(() => {}),
    end: async () => {},
  };
}

/**
 * The nodes the strategy declared (Postgres, the resource, always; its pgbouncer or DynamoDB), plus what the run's faults need. Exported for
 * `bench throughput`, whose bare clients run on the cluster a run boots.
 */
export function clusterSpecFor(
  strategy: ResolvedStrategy,
  config: Readonly<Config>,
  faultNeeds: RunNeeds,
  clocks: ClockBoard | null,
  serverNet: ServerNet | null,
): ClusterSpec {
  return {
    ...strategy.servers,
    pg: true,
    // The pooler a strategy reaches Postgres through: a waiter gives up on the client's acquire budget, not never.
    ...(strategy.pgbouncer
      ? { pgbouncer: { poolMode: strategy.pgbouncer, waitTimeoutMs: runTiming(config).acquireTimeoutMs } }
      : {}),
    // The DynamoDB a strategy keeps its lock in: dynalite with the run's key and table.
    ...(strategy.dynamodb ? { dynamodb: true } : {}),
    // A fault's primary + replica (failover); clients then reach their first Redis through the primary's proxy.
    failoverPair: strategy.servers.redis > 0 && faultNeeds.failoverPair,
    redisPersistence: config.redisPersistence,
    redisServer: config.redisServer,
    ...(clocks
      ? { envFor: (node: string) => clocks.env(node), writableFor: (node: string) => [clocks.recordPath(node)] }
      : {}),
    ...(serverNet ? { cgroupFor: (node: string) => serverNet.cgroupFor(node) } : {}),
  };
}
