import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import type { EtcdNode } from '../../cluster/servers/etcd-node.ts';
import { clientRoutes } from '../../nemesis/client-routes.ts';
import type { FaultContext } from '../../nemesis/fault.ts';
import { lockServers } from '../../nemesis/lock-servers.ts';
import type { ProxyDroppedReply, TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';

/**
 * What the etcd reply-loss faults share: a client's own proxies in front of the etcd members (framed as gRPC:
 * nemesis/proxy/grpc-framing.ts), the wait for the one that dropped its aimed reply, and the harness's own clients of
 * each member, on its own port (never through a proxy), to read what the server did.
 */

/** How often the wait for the drop looks at the proxies' records of dropped replies. */
const DROP_POLL_MS = 2;

/** A client's own proxy in front of one etcd member, with that member and the drops it had before this shot. */
export type EtcdRoute = { node: EtcdNode; proxy: TcpProxy; dropsBefore: number };

/** Client `slot`'s own proxies in front of the etcd members, each with its member. */
export function etcdRoutes(
  ctx: Pick<FaultContext, 'proxies' | 'cluster' | 'servers'> & { pair?: FaultContext['pair'] },
  slot: number,
): EtcdRoute[] {
  const own = clientRoutes(ctx.proxies, slot);
  return lockServers({ redis: 0, etcd: ctx.servers.etcd, zk: 0 }, ctx.cluster, null).flatMap((s) => {
    const proxy = own.get(s.proxy);
    return proxy && s.node.kind === 'etcd'
      ? [{ node: s.node as EtcdNode, proxy, dropsBefore: proxy.droppedReplies().length }]
      : [];
  });
}

/** Why a run gives an etcd reply-loss fault nothing to aim at: its clients have no proxies of their own. */
export function noOwnEtcdRoutes(env: Parameters<typeof etcdRoutes>[0]): string | null {
  return etcdRoutes(env, 0).length ? null : 'the clients do not reach etcd through proxies of their own';
}

/**
 * The first route that dropped its aimed reply, with that drop, or undefined when the wait was ended first. The
 * client may call any member, so every route is armed; the first drop is the shot.
 */
export async function firstEtcdDrop(
  routes: readonly EtcdRoute[],
  signal: AbortSignal,
): Promise<{ route: EtcdRoute; drop: ProxyDroppedReply } | undefined> {
  const dropped = () => routes.find((r) => r.proxy.droppedReplies().length > r.dropsBefore);
  while (!signal.aborted && !dropped()) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  const route = dropped();
  return route && { route, drop: route.proxy.droppedReplies().at(-1)! };
}

/** The drop's time on the history's clock (ns), from the proxy's record of when it dropped. */
export function droppedAtNs(ctx: Pick<FaultContext, 'journal'>, drop: ProxyDroppedReply): number {
  return ctx.journal.sinceOrigin(process.hrtime.bigint()) - Math.round((performance.now() - drop.atMs) * 1e6);
}

/**
 * The harness's clients of the members, opened as the shot is armed so the read right after the drop costs one round
 * trip, not a connection and an authentication. A member's read is linearizable: it sees every write etcd committed
 * before it answered, whichever member the client's call went to.
 */
export class MemberReaders {
  private readonly clients = new Map<EtcdNode, Etcd3>();

  on(node: EtcdNode): Etcd3 {
    let c = this.clients.get(node);
    if (!c) this.clients.set(node, (c = node.client()));
    return c;
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}

/** A lock key as etcd holds it: its value, the lease it is attached to and the revision that created it. */
export interface EtcdKey {
  value: string;
  lease: string;
  createRevision: string;
}

/** The key read on `node`'s own port: null when etcd holds no such key. */
export async function readKey(readers: MemberReaders, node: EtcdNode, key: string): Promise<EtcdKey | null> {
  const res = await readers.on(node).get(key).exec();
  const kv = res.kvs[0];
  return kv
    ? { value: kv.value.toString(), lease: String(kv.lease), createRevision: String(kv.create_revision) }
    : null;
}
