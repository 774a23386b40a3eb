import type { EndParams } from '../evidence.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import type { EtcdNode } from '../../cluster/servers/etcd-node.ts';
import { clientRoutes } from '../../nemesis/client-routes.ts';
import { aimedClient, type FaultContext, type FaultExecutor } from '../../nemesis/fault.ts';
import { lockServers } from '../../nemesis/lock-servers.ts';
import type { ProxyDroppedReply, TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';

/** The call aimed at: a Txn whose success branch puts (etcd-calls.ts names it so), as every etcd acquire here sends. */
const ACQUIRE_CALL = 'KV/Txn put';
/** A Txn whose compares held and whose put ran answers `succeeded`; one that found the key held did nothing. */
const GRANTED_ANSWER = 'succeeded';
/** The locks whose acquire is such a Txn, putting the lock key on the client's lease (their own recipes). */
export const AIMABLE_LOCKS = ['etcd', 'etcd-go'];

/**
 * An acquire reaches etcd and is granted; its answer never comes back. A random live client's own proxies in front of
 * every etcd member (client-routes.ts, framed as gRPC) are armed to drop the answer to its next Txn that puts (an
 * acquire) and answered `succeeded` — a Txn that found the key held put nothing, so its answer passes and the aim
 * waits for the next — and then to reset that connection. Every member's route is armed because the client may call
 * any; all are healed as soon as one dropped: one shot, so a retry of the Txn reaches the server and comes back.
 * Right after the drop the key is read on a member: the value the Txn wrote, on the lease it named, is the server's
 * effect; anything else is a miss. Then the acquire in progress at the drop completes: the judge tells how.
 *
 * The fault ends (heal) once that acquire has completed, or after the story wait.
 */
export const replyLossEtcdAcquire: FaultExecutor<'reply-loss-etcd-acquire'> = {
  name: 'reply-loss-etcd-acquire',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    !servers.etcd
      ? `--lock=${lock} uses no etcd member`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `reply-loss-etcd-acquire aims at an acquire by its Txn that puts the lock key on the client's lease, known for --lock=${AIMABLE_LOCKS.join(', ')} only`,
  unavailable: (env) => replyLossEtcdAcquire.refusal(env.servers, env.config.lock) ?? noOwnEtcdRoutes(env),
  async start(ctx) {
    const { config, journal } = ctx;
    const client = aimedClient(ctx, (slot) => etcdRoutes(ctx, slot).length > 0);
    if (!client) return null;
    const routes = etcdRoutes(ctx, client.slot);
    // The process aimed at, as it is now: the slot's record takes the next process's id once this one exits (a client
    // that gave its acquire up as unknown is replaced), and the story is this one's.
    const { process: aimed } = client;
    const readers = new MemberReaders();
    // Connected and authenticated now, so the read after the drop is one round trip (a root login is a bcrypt hash).
    for (const r of routes) readers.warm(r.node);
    const outcome: Outcome = { droppedOn: [] };
    // The acquire in progress at the drop completes after it: the first acquire completion of this process once an
    // answer was dropped. Watched from the arming, so a completion that comes before the wait below saw the drop counts.
    const completed = watchFor(
      journal,
      (op) => op.process === aimed && op.f === 'acquire' && op.type !== 'invoke' && outcome.droppedOn.length > 0,
    );
    for (const r of routes) r.proxy.dropNextReply({ command: ACQUIRE_CALL, replyIs: GRANTED_ANSWER, then: 'reset' });
    // Ended by the heal too: a heal a script orders right after the acquire waits for the read, never races it.
    const healing = new AbortController();
    const healed = new Promise<void>((r) => healing.signal.addEventListener('abort', () => r(), { once: true }));
    const ready = (async () => {
      const first = await firstEtcdDrop(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!first) return;
      for (const r of routes) r.proxy.heal();
      const { route, drop } = first;
      outcome.droppedOn = [route.node.name];
      outcome.droppedAt = droppedAtNs(ctx, drop);
      Object.assign(outcome, { key: drop.request.key, sent: drop.request.value, lease: drop.request.lease });
      outcome.committedAt = /at revision (\d+)$/.exec(drop.reply.detail ?? '')?.[1];
      if (outcome.key === undefined) return;
      try {
        if (outcome.committedAt !== undefined)
          outcome.atCommit = await readKey(readers, route.node, outcome.key, outcome.committedAt);
        outcome.after = await readKey(readers, route.node, outcome.key);
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      await Promise.race([completed.seen, healed]);
    })();
    return {
      targets: [`client p${aimed} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: { slot: client.slot, process: aimed, ttlMs: config.ttlMs },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await ready;
        completed.stop();
        for (const r of routes) r.proxy.heal();
        readers.close();
        return { params: endParams(aimed, outcome), note: healNote(aimed, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  key?: string;
  sent?: string;
  lease?: string;
  committedAt?: string;
  atCommit?: EtcdKey | null;
  after?: EtcdKey | null;
  readError?: string;
  droppedAt?: number;
}

function endParams(process: number, o: Outcome): EndParams<'reply-loss-etcd-acquire'> {
  const params: EndParams<'reply-loss-etcd-acquire'> = { process, droppedOn: o.droppedOn };
  if (o.key !== undefined) params.key = o.key;
  if (o.sent !== undefined) params.sent = o.sent;
  if (o.lease !== undefined) params.lease = o.lease;
  if (o.committedAt !== undefined) params.committedAt = o.committedAt;
  if (o.atCommit) {
    params.valueAtCommit = o.atCommit.value;
    params.leaseAtCommit = o.atCommit.lease;
  }
  if (o.after) {
    params.valueAfter = o.after.value;
    params.leaseAfter = o.after.lease;
    params.revisionAfter = o.after.createRevision;
  }
  if (o.readError !== undefined) params.readError = o.readError;
  if (o.droppedAt !== undefined) params.droppedAt = o.droppedAt;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `no granted acquire of p${process} was seen while armed`;
  if (!o.atCommit)
    return `p${process}'s acquire answer was dropped on ${o.droppedOn.join(', ')}, but no key was read back`;
  const now = o.after ? 'still there' : 'gone by the read after';
  return `p${process}'s acquire put ${o.key} on lease ${o.atCommit.lease} at revision ${o.committedAt} (${now}); its answer was dropped on ${o.droppedOn.join(', ')}`;
}

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

  /** Opens the member's client and makes one read, so its connection and login are done before they are needed. */
  warm(node: EtcdNode): void {
    this.on(node)
      .get('fencepost/ready')
      .exec()
      .catch(() => {}); // a read that fails now is met again where it matters
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

/** The key read on `node`'s own port, now or as of `revision`: null when etcd held no such key. */
export async function readKey(
  readers: MemberReaders,
  node: EtcdNode,
  key: string,
  revision?: string,
): Promise<EtcdKey | null> {
  const get = readers.on(node).get(key);
  const res = await (revision === undefined ? get : get.revision(revision)).exec();
  const kv = res.kvs[0];
  return kv
    ? { value: kv.value.toString(), lease: String(kv.lease), createRevision: String(kv.create_revision) }
    : null;
}
