import type { AnyCluster } from '../cluster/cluster.ts';
import { runTiming } from '../common/run-timing.ts';
import { deriveSeed } from '../common/random.ts';
import { PRIMARY_PROXY } from '../nemesis/failover-pair.ts';
import type { RunNeeds } from '../nemesis/fault-registry.ts';
import type { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { lockSessionName } from '../workloads/lock-session-name.ts';
import { OP_BATCH_MS } from '../workloads/op-outbox.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import type { WriteMode } from '../workloads/resource.ts';
import type { Config } from './run-argv.ts';

function writeModeFor(strategy: ResolvedStrategy, fencing: boolean): WriteMode {
  if (strategy.token === 'version') return 'version';
  return fencing ? 'fenced' : 'plain';
}

/**
 * One spec per client slot: where its servers are (a proxy of ours or the server itself), its seeds and budgets,
 * and whether it sends each op at once (a fault of the run aims by them) or in batches.
 * Exported for `bench throughput`, whose bare clients get exactly what a run's clients get.
 */
export function clientSpecs(
  config: Readonly<Config>,
  strategy: ResolvedStrategy,
  cluster: AnyCluster,
  proxies: ReadonlyMap<string, TcpProxy>,
  faultNeeds: Pick<RunNeeds, 'liveOps'>,
  target?: ClientTarget,
): { specs: ClientSpec[]; stopGraceMs: number } {
  const portOf = (name: string) => proxies.get(name)?.port ?? cluster.nodes.find((n) => n.name === name)!.port;
  const via = (name: string) => ({ host: '127.0.0.1', port: portOf(name) });
  // A server's own endpoint (a target's host, user and TLS), or the proxy of ours in front of it. With a failover
  // pair, the first Redis is "the primary": a proxy the failover fault re-points at the promoted node.
  const redisEndpoints = cluster.redis.map((r, i) => {
    const proxy = proxies.get(i === 0 && cluster.failover ? PRIMARY_PROXY : r.name);
    return {
      ...r.endpoint(),
      ...(proxy ? { host: '127.0.0.1', port: proxy.port } : {}),
      ...(target ? { keyPrefix: target.keyPrefix } : {}),
    };
  });
  const etcdUrl = (e: AnyCluster['etcd'][number]) => {
    const proxy = proxies.get(e.name);
    return proxy ? e.endpoint.replace(/\/\/[^/]+/, `//127.0.0.1:${proxy.port}`) : e.endpoint;
  };
  const mode = writeModeFor(strategy, config.fencing);
  const timing = runTiming(config);
  const pgConfig = { ...cluster.pg!.connectionConfig(), ...via('pg') };
  const specs: ClientSpec[] = Array.from({ length: config.concurrency }, (_, slot) => ({
    slot,
    concurrency: config.concurrency,
    strategyUrl: strategy.moduleUrl,
    ...(strategy.foreign ? { foreign: strategy.foreign } : {}),
    ctx: {
      redis: redisEndpoints,
      etcd: cluster.etcd.map(etcdUrl),
      ...(cluster.etcd[0]?.userAuth ? { etcdAuth: cluster.etcd[0].userAuth } : {}),
      ...(target ? { keyPrefix: target.keyPrefix } : {}),
      ...(target?.etcdTls ? { etcdTls: target.etcdTls } : {}),
      zookeeper: cluster.zk.map((z) => `127.0.0.1:${portOf(z.name)}`).join(','),
      ...(cluster.zk[0] ? { zookeeperAuth: cluster.zk[0].userAuth } : {}),
      postgresUrl: postgresUrl(pgConfig, lockSessionName(slot)),
      ...(cluster.pgbouncer
        ? {
            pgbouncerUrl: postgresUrl(
              { ...cluster.pgbouncer.connectionConfig(), ...via(cluster.pgbouncer.name) },
              lockSessionName(slot),
            ),
          }
        : {}),
      ...(cluster.dynamodb
        ? {
            dynamodb: {
              ...cluster.dynamodb.clientConfig(),
              endpoint: `http://127.0.0.1:${portOf(cluster.dynamodb.name)}`,
            },
          }
        : {}),
      ttlMs: config.ttlMs,
      acquireTimeoutMs: timing.acquireTimeoutMs,
      retry: config.retry,
      client: slot,
      seed: deriveSeed(config.seed, { purpose: 'lock-client', slot }),
    },
    pg: pgConfig,
    mode,
    thinkMs: config.thinkMs,
    accounts: config.accounts,
    watchdog: config.watchdog,
    seed: deriveSeed(config.seed, { purpose: 'client-loop', slot }),
    stepTimeoutMs: timing.stepTimeoutMs,
    opBatchMs: faultNeeds.liveOps ? null : OP_BATCH_MS,
  }));
  return { specs, stopGraceMs: timing.stopGraceMs };
}

/** What the clients of a run against a target get besides the servers' endpoints. */
export interface ClientTarget {
  keyPrefix: string;
  etcdTls?: { ca?: string; servername?: string };
}

/**
 * The run's Postgres as a connection string (LockContext.postgresUrl), for a lock that lives in Postgres: its sessions
 * named for the client slot (`application_name`), so the kill-session fault can find the holder's.
 */
export function postgresUrl(
  c: { host?: string; port?: number; user?: string; password?: unknown; database?: string },
  applicationName: string,
): string {
  const auth = `${encodeURIComponent(c.user ?? '')}:${encodeURIComponent(String(c.password ?? ''))}`;
  const db = encodeURIComponent(c.database ?? '');
  return `postgres://${auth}@${c.host}:${c.port}/${db}?application_name=${encodeURIComponent(applicationName)}`;
}
