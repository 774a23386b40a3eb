import type { Credentials } from './credentials.ts';
import type { ClusterNode, EtcdServer, RedisServer } from './node.ts';
import type { EtcdNode } from './servers/etcd-node.ts';
import type { PgNode } from './servers/pg-node.ts';
import type { PgbouncerNode } from './servers/pgbouncer-node.ts';
import type { DynaliteNode } from './servers/dynalite-node.ts';
import type { PoolMode } from './servers/pgbouncer-config.ts';
import type { RedisNode, RedisPersistence, RedisServerKind } from './servers/redis-node.ts';
import type { ZkNode } from './servers/zk-node.ts';

/** Which nodes a run needs: a redis-only test doesn't wait for three JVMs. */
export interface ClusterSpec {
  redis?: number;
  etcd?: number;
  zk?: number;
  pg?: boolean;
  /**
   * A pgbouncer in front of Postgres (needs `pg`), for a lock row that reaches Postgres through a pooler: its pool
   * mode, and how long a statement may wait for a lock or for a server connection (the run's acquire budget).
   */
  pgbouncer?: { poolMode: PoolMode; waitTimeoutMs: number };
  /** A DynamoDB (dynalite) with the run's access key and lock table, for a lock row that lives in DynamoDB. */
  dynamodb?: boolean;
  /** A primary + replica pair for the `failover` fault (the seed table's single-Redis row). */
  failoverPair?: boolean;
  redisPersistence?: RedisPersistence;
  /** The binary the Redis nodes run (`--redis-server`); default redis. */
  redisServer?: RedisServerKind;
  /** Extra environment per node name, read at every (re)start: the clock shim. */
  envFor?: (node: string) => Record<string, string> | undefined;
  /** Files per node name its server's account must be able to write, read at every (re)start: its clock record. */
  writableFor?: (node: string) => string[];
  /** The cgroup2 folder each server (not Postgres) starts in, for server↔server partitions; read at every (re)start. */
  cgroupFor?: (node: string) => string | undefined;
}

export const FULL_CLUSTER: ClusterSpec = { redis: 5, etcd: 3, zk: 3, pg: true };

/**
 * A cluster as the harness addresses it: `redis[0..4]`, `etcd[0..2]`, `zk[0..2]`, `pg`, `pgbouncer`, `dynamodb`.
 * Contract: `start` either starts every node or, on failure, tears down what it started and rethrows the
 * first node's error; `teardown` resumes every paused process before stopping anything and never throws.
 */
export interface Cluster<R extends RedisServer = RedisNode, E extends EtcdServer = EtcdNode> {
  /** The lock's Redis masters: fencepost's own, or a target's (target/remote-node.ts). */
  redis: R[];
  etcd: E[];
  zk: ZkNode[];
  pg: PgNode | null;
  /** The pooler in front of `pg`, when the spec asked for one. */
  pgbouncer: PgbouncerNode | null;
  /** The run's DynamoDB, when the spec asked for one. */
  dynamodb: DynaliteNode | null;
  failover: { primary: RedisNode; replica: RedisNode } | null;
  nodes: ClusterNode[];
  /** The run's passwords (also in <runDir>/secrets.json, 0600). */
  credentials: Credentials;
  start(): Promise<void>;
  teardown(): Promise<void>;
}

/**
 * A cluster whose lock servers may be fencepost's own or a target's (the user's deployment, target/target-cluster.ts):
 * what a run, its nemesis and its clients' specs work with. Fencepost's own clusters are one (`Cluster` is assignable).
 */
export type AnyCluster = Cluster<RedisServer, EtcdServer>;
