import type { ClusterNode } from '../../cluster/node.ts';
import type { EtcdNode } from '../../cluster/servers/etcd-node.ts';
import type { ZkNode } from '../../cluster/servers/zk-node.ts';
import type { FaultContext, FaultExecutor } from '../fault.ts';
import type { EndParams, StartParams } from '../../faults/evidence.ts';
import type { ServerPartitionEnd, ServerPartitionStart } from '../../faults/evidence-parts.ts';
import { PRIMARY_PROXY } from '../failover-pair.ts';
import { leaderOf, lockServerKind, lockServers } from '../lock-servers.ts';
import type { LockServerCounts } from '../lock-servers.ts';
import type { NemesisEnv } from '../nemesis.ts';
import type { Grudge } from './grudge.ts';
import type { FAULT_CATALOGUE, FaultName } from '../../faults/catalogue.ts';
import type { serverPartitionEvidence } from '../../faults/evidence-parts.ts';
import { connectedPorts } from './client-links.ts';

/** The members of the link a server partition cuts, and how the others reach each one. */
interface Ensemble {
  /** etcd members, ZooKeeper servers, or the failover pair's primary and replica (in that order). */
  members: ClusterNode[];
  /** The ports the other members dial to reach it (peer, quorum and election ports; the replication link). */
  peerPorts(n: ClusterNode): number[];
  /** The ports clients reach it on: its own, and its client proxy's. */
  clientPorts(n: ClusterNode): number[];
  leader(): Promise<ClusterNode | null>;
  /** How each member sees the ensemble now (its leader, or its mode), for the record. */
  views(): Promise<Record<string, string>>;
}

/** How many members the strategy's lock servers have, and of which kind (etcd, zk, or a Redis pair: 2). */
function membersOf(servers: LockServerCounts): { kind: string; count: number } {
  const kind = lockServerKind(servers);
  if (kind === 'etcd') return { kind, count: servers.etcd };
  if (kind === 'zk') return { kind, count: servers.zk };
  if (kind === 'redis') return { kind, count: 2 };
  return { kind, count: 0 };
}

function ensembleOf(ctx: FaultContext): Ensemble | null {
  const kind = lockServerKind(ctx.servers);
  const proxyPort = (name: string) => ctx.proxies.get(name)?.port;
  const clientPorts = (n: ClusterNode, proxy = n.name) =>
    [n.port, proxyPort(proxy)].filter((p): p is number => p !== undefined);
  if (kind === 'etcd' || kind === 'zk') {
    const servers = lockServers(ctx.servers, ctx.cluster, null);
    const members = servers.map((s) => s.node);
    return {
      members,
      peerPorts: (n) => (n as EtcdNode | ZkNode).peerPorts,
      clientPorts: (n) => clientPorts(n),
      leader: async () => (await leaderOf(servers.filter((s) => s.node.running && !s.node.paused)))?.node ?? null,
      views: () => (kind === 'etcd' ? etcdViews(members as EtcdNode[]) : zkViews(members as ZkNode[])),
    };
  }
  const pair = ctx.pair;
  if (kind !== 'redis' || !pair) return null;
  return {
    members: [pair.primary, pair.replica],
    // The replica dials the primary through the replication link's proxy: that port stands for the primary.
    peerPorts: (n) => (n === pair.primary ? [pair.link.port] : []),
    clientPorts: (n) => (n === pair.primary ? clientPorts(n, PRIMARY_PROXY) : [n.port]),
    leader: async () => pair.primary,
    views: async () => ({ [pair.primary.name]: 'primary', [pair.replica.name]: 'replica' }),
  };
}

async function etcdViews(nodes: EtcdNode[]): Promise<Record<string, string>> {
  const statuses = await Promise.all(nodes.map((n) => within(n.status(), 2000).catch(() => null)));
  const byId = new Map(statuses.map((s, i) => [s?.memberId, nodes[i].name]));
  return Object.fromEntries(
    nodes.map((n, i) => {
      const s = statuses[i];
      const seen = !s
        ? 'no answer (an isolated member cannot authenticate us)'
        : s.leader === '0'
          ? 'no leader'
          : `leader ${byId.get(s.leader) ?? s.leader}`;
      return [n.name, seen];
    }),
  );
}

async function zkViews(nodes: ZkNode[]): Promise<Record<string, string>> {
  const modes = await Promise.all(nodes.map((n) => n.mode()));
  return Object.fromEntries(nodes.map((n, i) => [n.name, modes[i] ?? 'not serving']));
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(t));
}

/** The client processes connected to any of `members` now (`client 2 (p7)`), from their open TCP connections. */
function clientsOn(ctx: FaultContext, e: Ensemble, members: readonly ClusterNode[]): string[] {
  const ports = new Set(members.flatMap((m) => e.clientPorts(m)));
  return ctx.clients.clients
    .filter((c) => !c.exited && [...connectedPorts(c.pid)].some((p) => ports.has(p)))
    .map((c) => `client ${c.slot} (p${c.process})`);
}

/** The faults whose evidence is a server partition's: the ones this executor can be. */
type PartitionFaultName = {
  [F in FaultName]: (typeof FAULT_CATALOGUE)[F]['evidence'] extends typeof serverPartitionEvidence ? F : never;
}[FaultName];

/** One of Jepsen's grudges, as its fault's folder declares it (faults/<name>/inject.ts). */
export interface GrudgeSpec<G extends PartitionFaultName> {
  name: G;
  /** The fewest members it can split into something a quorum notices. */
  minMembers: number;
  /** What it does to the members, for the start record's note. */
  says: string;
  /** Its sides over these members (null: it cannot cut now, e.g. no leader to isolate). Pure and seeded. */
  cut(members: string[], leader: string | null, random: () => number): Grudge | null;
}

/**
 * Why a grudge can't act on a lock served by `servers`: no ensemble (Redlock's independent masters, Postgres), too
 * few members for the grudge (a bridge needs 3, a ring 5), or a Redis pair for a grudge that needs three.
 */
function refusalOf(
  { name, minMembers }: GrudgeSpec<PartitionFaultName>,
  servers: LockServerCounts,
  lock: string,
): string | null {
  const { kind, count } = membersOf(servers);
  if (kind === 'pg')
    return `--lock=${lock} has no server ensemble: ${name} cuts the links between etcd members, ZooKeeper servers or a Redis primary and its replica`;
  if (kind === 'redis' && servers.redis > 1)
    return `--lock=${lock} runs on ${servers.redis} independent Redis masters, which never talk to each other: there is no server link for ${name} to cut`;
  if (count < minMembers) {
    const flag = kind === 'etcd' ? ' (add --etcd-nodes=5)' : kind === 'zk' ? ' (add --zk-nodes=5)' : '';
    return `${name} needs at least ${minMembers} members; --lock=${lock} has ${count}${kind === 'redis' ? ' (a Redis primary and its replica)' : ''}${flag}`;
  }
  return null;
}

/**
 * A server↔server partition with one of Jepsen's grudges, through the run's server network (nftables drops
 * between the members' cgroups, nemesis/server-partition): for `--pause` ms the sides cannot hear each other
 * on their peer ports; clients keep their connections to every member, so the clients on the leader's side keep
 * talking to it. The start record names the grudge, each side's members and the clients connected to them, and
 * the leader; the end record how each member saw the ensemble just before the heal and what the drops held.
 */
export function serverPartition<G extends PartitionFaultName>(grudge: GrudgeSpec<G>): FaultExecutor<G> {
  const { name } = grudge;
  const executor: FaultExecutor<G> = {
    name,
    // The Redis pair has two members: only the grudges that can split two need it booted.
    needs: {
      serverNet: true,
      ...(grudge.minMembers <= 2 ? { failoverPair: true as const } : {}),
      onTarget:
        'it cuts links between servers in nftables on this machine, between servers fencepost started in cgroups of its own',
    },
    refusal: (servers, lock) => refusalOf(grudge, servers, lock),
    unavailable(env: NemesisEnv) {
      const refused = refusalOf(grudge, env.servers, env.config.lock);
      if (refused) return refused;
      if (!env.serverNet) return 'the run has no server network (server partitions need the local backend, as root)';
      if (lockServerKind(env.servers) === 'redis' && !env.cluster.failover)
        return `--lock=${env.config.lock} has no Redis primary/replica pair`;
      return null;
    },
    async start(ctx) {
      const net = ctx.serverNet;
      const e = ensembleOf(ctx);
      if (!net || !e || ctx.signal.aborted) return null;
      const leader = await e.leader();
      const names = e.members.map((m) => m.name);
      const drawn = grudge.cut(names, leader?.name ?? null, ctx.random);
      if (!drawn || ctx.signal.aborted) return null;
      const byName = new Map(e.members.map((m) => [m.name, m]));
      // Read before the cut: an isolated etcd member cannot authenticate our status call (auth needs its quorum).
      const viewsBefore = await e.views();
      if (ctx.signal.aborted) return null;
      net.cut(
        e.members.map((m) => net.member(m.name, e.peerPorts(m))),
        drawn.cuts,
      );
      const cuts = drawn.cuts.map(([a, b]) => `${a} ⇹ ${b}`);
      const sides = drawn.components.map((c) => ({
        members: c,
        clients: clientsOn(
          ctx,
          e,
          c.map((n) => byName.get(n)!),
        ),
      }));
      return {
        targets: sides.map((s) => `{${s.members.join(', ')}}`).concat(leader ? [`leader ${leader.name}`] : []),
        params: {
          grudge: name,
          durationMs: ctx.config.pauseMs,
          ttlMs: ctx.config.ttlMs,
          leader: leader?.name ?? null,
          sides,
          cuts,
          viewsBefore,
          // Every grudge records the same evidence (faults/evidence-parts.ts): what G's is, for any G.
        } satisfies ServerPartitionStart as unknown as StartParams<G>,
        note: `${grudge.says}; cut ${cuts.join(', ')}`,
        holdMs: ctx.config.pauseMs,
        heal: () => healPartition<G>(e, net),
      };
    },
  };
  return executor;
}

/**
 * Heal the partition: how the members saw the ensemble at its end (the evidence of an election, or of a minority
 * that lost its leader), read before the links come back, and what the drops held.
 */
async function healPartition<G extends PartitionFaultName>(
  e: Ensemble,
  net: NonNullable<FaultContext['serverNet']>,
): Promise<{ params: EndParams<G>; note: string }> {
  const viewsDuring = await e.views().catch(() => ({}));
  const counts = net.heal();
  const heldBytes = Object.fromEntries(counts.filter((c) => c.bytes > 0).map((c) => [c.comment, c.bytes]));
  const heldPackets = counts.reduce((a, c) => a + c.packets, 0);
  const total = counts.reduce((a, c) => a + c.bytes, 0);
  return {
    params: {
      heldBytes,
      heldPackets,
      totalHeldBytes: total,
      viewsDuring,
    } satisfies ServerPartitionEnd as unknown as EndParams<G>,
    note: `held ${total} bytes in ${heldPackets} packets between the sides`,
  };
}
