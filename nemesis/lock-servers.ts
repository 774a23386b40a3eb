import type { AnyCluster } from '../cluster/cluster.ts';
import type { ZkNode } from '../cluster/servers/zk-node.ts';
import type { ClusterNode, EtcdServer, NodeKind, RedisServer } from '../cluster/node.ts';
import { PRIMARY_PROXY, type FailoverPair } from './failover-pair.ts';

/** A server the lock depends on, with the proxy clients reach it through. */
export interface LockServer {
  node: ClusterNode;
  /** Key of its client-facing proxy in the run's proxy map. */
  proxy: string;
}

/** How many nodes of each server the strategy runs on: the resolved strategy's declaration. */
export type LockServerCounts = Readonly<Record<'redis' | 'etcd' | 'zk', number>>;

/**
 * The servers that decide who holds the lock, in the order the strategy addresses them — from what the strategy
 * declared, not from its name: its Redis masters (with a failover pair the first is whichever node is primary
 * now), else its etcd members, else its ZooKeeper servers, else Postgres (the postgres strategy's lock is the row
 * itself; `none` has no lock and the resource is all there is).
 */
export function lockServers(servers: LockServerCounts, cluster: AnyCluster, pair: FailoverPair | null): LockServer[] {
  const masters = redisMasters(servers, cluster, pair);
  if (masters.length) return masters;
  if (servers.etcd) return cluster.etcd.slice(0, servers.etcd).map((n) => ({ node: n, proxy: n.name }));
  if (servers.zk) return cluster.zk.slice(0, servers.zk).map((n) => ({ node: n, proxy: n.name }));
  return cluster.pg ? [{ node: cluster.pg, proxy: 'pg' }] : [];
}

/**
 * The kind of the servers that decide who holds the lock, from the strategy's declaration alone (lockServers's
 * order: Redis masters, else etcd, else ZooKeeper, else Postgres).
 */
export function lockServerKind(servers: LockServerCounts): NodeKind {
  return servers.redis ? 'redis' : servers.etcd ? 'etcd' : servers.zk ? 'zk' : 'pg';
}

/** The Redis masters the strategy's clients use (ctx.redis order): as many as it declared. */
export function redisMasters(
  servers: LockServerCounts,
  cluster: AnyCluster,
  pair: FailoverPair | null,
): { node: RedisServer; proxy: string }[] {
  return everyRedisMaster(cluster, pair).slice(0, servers.redis);
}

/**
 * Every Redis master of the run (ctx.redis order), whichever the strategy uses. The faults aimed at a lock key
 * (restart-empty, clock) look for it on all of them: a plugin may use one node, three, or all five, and only
 * the nodes themselves know where its keys are.
 */
export function everyRedisMaster(
  cluster: AnyCluster,
  pair: FailoverPair | null,
): { node: RedisServer; proxy: string }[] {
  if (!cluster.redis.length && !pair) return [];
  const all = cluster.redis.map((n) => ({ node: n, proxy: n.name }));
  if (pair) all[0] = { node: pair.primary, proxy: PRIMARY_PROXY };
  return all;
}

/** Majority of `n` (Redlock: 3 of 5; a single node: 1). */
export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}

/**
 * How many of the masters holding a key must lose it before another client can win the lock while the holder
 * still believes it holds it. A key on a majority of the `n` masters is a majority lock (Redlock): the others
 * can reach at most n − held + lost free masters, which must reach majority(n), so lost = held − (n − majority(n))
 * — a holder that got all 5 needs 3 lost, one that got 3 needs 1 (Kleppmann's example). A key on fewer than a
 * majority is not a majority lock (a single-node lock such as --lock=redis or examples/my-lock.ts, or a lock on
 * a few nodes of its own choosing): every node holding it must lose it.
 */
export function mastersToBreak(held: number, n: number): number {
  if (held < majority(n)) return held;
  return held - (n - majority(n));
}

/** The etcd leader as the members see it; null when none answers within the timeout (no quorum, all paused). */
export async function etcdLeader(nodes: EtcdServer[], timeoutMs = 1000): Promise<EtcdServer | null> {
  const statuses = await Promise.all(
    nodes.map((n) =>
      n.running && !n.paused ? withTimeout(n.status(), timeoutMs).catch(() => null) : Promise.resolve(null),
    ),
  );
  const leaderId = statuses.find((s) => s && s.leader !== '0')?.leader;
  const i = statuses.findIndex((s) => s?.memberId === leaderId);
  return i >= 0 ? nodes[i] : null;
}

/** The ZooKeeper leader by `srvr`; null when none says `leader`. */
export async function zkLeader(nodes: ZkNode[]): Promise<ZkNode | null> {
  const modes = await Promise.all(nodes.map((n) => (n.running && !n.paused ? n.mode() : Promise.resolve(null))));
  const i = modes.indexOf('leader');
  return i >= 0 ? nodes[i] : null;
}

/** The leader among `servers` when they elect one (etcd, ZooKeeper); null otherwise or when there is none now. */
export async function leaderOf(servers: LockServer[]): Promise<LockServer | null> {
  const kind = servers[0]?.node.kind;
  let leader: ClusterNode | null = null;
  if (kind === 'etcd') leader = await etcdLeader(servers.map((s) => s.node as EtcdServer));
  else if (kind === 'zk') leader = await zkLeader(servers.map((s) => s.node as ZkNode));
  return servers.find((s) => s.node === leader) ?? null;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
