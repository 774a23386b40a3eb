import fs from 'node:fs';
import path from 'node:path';
import { runCredentials } from './credentials.ts';
import { freePorts } from '../common/free-port.ts';
import type { Cluster, ClusterSpec } from './cluster.ts';
import type { NodeHost } from './node-host.ts';
import { EtcdNode, enableEtcdAuth } from './servers/etcd-node.ts';
import { PgNode } from './servers/pg-node.ts';
import { PgbouncerNode } from './servers/pgbouncer-node.ts';
import { DynaliteNode, runTableName } from './servers/dynalite-node.ts';
import { PG_DATABASE, PG_ROLE } from './credentials.ts';
import { RedisNode } from './servers/redis-node.ts';
import { ZkNode } from './servers/zk-node.ts';

/**
 * Ready timeouts: a JVM on a busy 2-core machine can take a while, the others are quick. pgbouncer is ready when a
 * statement goes through it, so it waits for Postgres too: Postgres's time. dynalite is a node process loading tsx.
 */
const READY_TIMEOUT_MS = {
  redis: 10_000,
  etcd: 20_000,
  zk: 45_000,
  pg: 20_000,
  pgbouncer: 20_000,
  dynamodb: 20_000,
} as const;

type Kind = 'redis' | 'etcd' | 'zk' | 'pg' | 'pgbouncer' | 'dynamodb';
type Credentials = Cluster['credentials'];

/** What every node of one run shares: where its data and log go, its host, its env, its ready timeout. */
function nodeBase(spec: ClusterSpec, runDir: string, host: NodeHost) {
  const logs = path.join(runDir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  return (name: string, kind: Kind, port: number) => ({
    name,
    kind,
    port,
    dir: path.join(runDir, 'nodes', name.replace(/[[\]]/g, '')),
    logFile: path.join(logs, `${name.replace(/[[\]]/g, '')}.log`),
    host,
    env: () => spec.envFor?.(name) ?? {},
    writable: () => spec.writableFor?.(name) ?? [],
    // Postgres is the resource, not a member of any ensemble: no partition is ever between it and a server (nor
    // between it and its pooler).
    cgroup: () => (kind === 'pg' || kind === 'pgbouncer' ? undefined : spec.cgroupFor?.(name)),
    readyTimeoutMs: READY_TIMEOUT_MS[kind],
  });
}

/** What the per-kind builders get: the shared node fields, the next free port, the run's passwords. */
interface Layout {
  base: ReturnType<typeof nodeBase>;
  take: () => number;
  credentials: Credentials;
}

function redisNode({ base, take, credentials }: Layout, spec: ClusterSpec, name: string, replicaOf?: string) {
  return new RedisNode({
    ...base(name, 'redis', take()),
    persistence: spec.redisPersistence ?? 'none',
    server: spec.redisServer ?? 'redis',
    password: credentials.redis,
    ...(replicaOf === undefined ? {} : { replicaOf }),
  });
}

function etcdNodes({ base, take, credentials }: Layout, count: number, runDir: string): EtcdNode[] {
  const ports = Array.from({ length: count }, () => ({ client: take(), peer: take() }));
  const initialCluster = ports.map((p, i) => `etcd${i}=http://127.0.0.1:${p.peer}`).join(',');
  const token = `fencepost-${path.basename(runDir)}`;
  const nodes: EtcdNode[] = [];
  for (const [i, p] of ports.entries()) {
    nodes.push(
      new EtcdNode({
        ...base(`etcd[${i}]`, 'etcd', p.client),
        peerPort: p.peer,
        initialCluster,
        clusterToken: token,
        rootPassword: credentials.etcdRoot,
        userPassword: credentials.etcd,
        // One after another on the first start: see EtcdNode.prepare.
        ...(i > 0 ? { firstStartAfter: nodes[i - 1] } : {}),
      }),
    );
  }
  return nodes;
}

function zkNodes({ base, take, credentials }: Layout, count: number): ZkNode[] {
  const ports = Array.from({ length: count }, () => ({ client: take(), peer: take(), election: take() }));
  const serverLines = ports.map((p, i) => `server.${i + 1}=127.0.0.1:${p.peer}:${p.election}`);
  return ports.map(
    (p, i) => new ZkNode({ ...base(`zk[${i}]`, 'zk', p.client), myid: i + 1, serverLines, password: credentials.zk }),
  );
}

/** The pooler in front of the run's Postgres: the bank role and database, with the role's per-run password. */
function pgbouncerNode({ base, take, credentials }: Layout, pg: PgNode, spec: NonNullable<ClusterSpec['pgbouncer']>) {
  return new PgbouncerNode({
    ...base('pgbouncer', 'pgbouncer', take()),
    pgPort: pg.port,
    database: PG_DATABASE,
    user: PG_ROLE,
    password: credentials.pg,
    ...spec,
  });
}

/** The run's DynamoDB (dynalite): its per-run access key and its own lock table. */
function dynamoNode({ base, take, credentials }: Layout, runDir: string) {
  return new DynaliteNode({
    ...base('dynamodb', 'dynamodb', take()),
    accessKeyId: credentials.dynamodbKeyId,
    secretAccessKey: credentials.dynamodbSecret,
    table: runTableName(runDir),
  });
}

/**
 * The cluster as every backend lays it out: servers on 127.0.0.1, ports chosen at run time, each node's data
 * under `<runDir>/nodes/<name>/` and its log at `<runDir>/logs/<name>.log`. The host decides where the processes
 * run; its own teardown (`disposeHost`) runs after every node has ended.
 */
export async function assembleCluster(
  spec: ClusterSpec,
  runDir: string,
  host: NodeHost,
  disposeHost: () => Promise<void> = async () => {},
): Promise<Cluster> {
  const counts = {
    redis: spec.redis ?? 0,
    etcd: spec.etcd ?? 0,
    zk: spec.zk ?? 0,
    pg: spec.pg ? 1 : 0,
    pgbouncer: spec.pg && spec.pgbouncer ? 1 : 0,
    dynamodb: spec.dynamodb ? 1 : 0,
    failover: spec.failoverPair ? 2 : 0,
  };
  // Fresh passwords for this run, in <runDir>/secrets.json (0600); every node and client gets them from here.
  const credentials = runCredentials(runDir);
  const ports = await freePorts(
    counts.redis + counts.etcd * 2 + counts.zk * 3 + counts.pg + counts.pgbouncer + counts.dynamodb + counts.failover,
  );
  const layout: Layout = { base: nodeBase(spec, runDir, host), take: () => ports.shift()!, credentials };
  // Built in this order, which is the order the free ports are taken in.
  const redis = Array.from({ length: counts.redis }, (_, i) => redisNode(layout, spec, `redis[${i}]`));
  const etcd = etcdNodes(layout, counts.etcd, runDir);
  const zk = zkNodes(layout, counts.zk);
  const pg = counts.pg
    ? new PgNode({
        ...layout.base('pg', 'pg', layout.take()),
        superuserPassword: credentials.pgSuperuser,
        password: credentials.pg,
      })
    : null;
  const pgbouncer = pg && spec.pgbouncer ? pgbouncerNode(layout, pg, spec.pgbouncer) : null;
  const dynamodb = counts.dynamodb ? dynamoNode(layout, runDir) : null;
  let failover: Cluster['failover'] = null;
  if (counts.failover) {
    const primary = redisNode(layout, spec, 'redis-primary');
    failover = { primary, replica: redisNode(layout, spec, 'redis-replica', `127.0.0.1:${primary.port}`) };
  }
  return clusterOf({ redis, etcd, zk, pg, pgbouncer, dynamodb, failover, credentials }, disposeHost);
}

/** The cluster's nodes with the one way to start them all and the one way to stop them all. */
function clusterOf(
  parts: Pick<Cluster, 'redis' | 'etcd' | 'zk' | 'pg' | 'pgbouncer' | 'dynamodb' | 'failover' | 'credentials'>,
  disposeHost: () => Promise<void>,
): Cluster {
  const { redis, etcd, zk, pg, pgbouncer, dynamodb, failover } = parts;
  const nodes = [
    ...redis,
    ...etcd,
    ...zk,
    ...(pg ? [pg] : []),
    ...(pgbouncer ? [pgbouncer] : []),
    ...(dynamodb ? [dynamodb] : []),
    ...(failover ? [failover.primary, failover.replica] : []),
  ];
  const cluster: Cluster = {
    ...parts,
    nodes,
    async start() {
      // All at once (an etcd member's first start waits only for the one before it to serve its peers: see
      // EtcdNode.prepare); ZooKeeper members wait for each other anyway, and its JVMs are the slowest boot.
      const results = await Promise.allSettled(nodes.filter((n) => n !== failover?.replica).map((n) => n.start()));
      if (failover) results.push(...(await Promise.allSettled([failover.replica.start()])));
      // etcd's auth goes on once its members have formed (enabling needs a leader), before any client connects.
      if (!results.some((r) => r.status === 'rejected')) {
        results.push(...(await Promise.allSettled([enableEtcdAuth(etcd)])));
      }
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        // Half-started is not a state we hand out: stop what did start and rethrow the original error.
        await cluster.teardown();
        throw failed.reason;
      }
    },
    async teardown() {
      // Resume everything before stopping anything: a paused node can't shut down, and a paused Postgres
      // backend could hold a lock the others wait on.
      await Promise.all(nodes.map((n) => n.resume().catch(() => {})));
      // halt (SIGKILL for most), not a graceful stop: their data is thrown away, and an etcd leader's graceful
      // stop waits ~5 s trying to hand over leadership to members that are stopping too.
      await Promise.all(nodes.map((n) => n.halt().catch(() => n.kill())));
      await Promise.all(nodes.map((n) => n.dispose().catch(() => {})));
      await disposeHost().catch(() => {});
    },
  };
  return cluster;
}
