import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ZkNode } from '../../cluster/servers/zk-node.ts';
import type { EndParams } from '../evidence.ts';
import { clientRoutes } from '../../nemesis/client-routes.ts';
import { aimedClient, type FaultContext, type FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { lockServers } from '../../nemesis/lock-servers.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { ownChildren, type Owners } from './own-children.ts';
import { ZkSession } from '../../locks/zookeeper/zk-session.ts';
import { runTiming } from '../../common/run-timing.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import { BUILTIN_LOCKS } from '../../workloads/lock-names.ts';

/**
 * The locks whose acquire is a create with a per-client prefix to find its node by, each with the request that makes
 * its lock node (its row's `lockNodeCreate`, as zookeeper-framing.ts names it): fencepost's recipe sends `create`;
 * Curator's InterProcessMutex `create2`, its node named `_c_<guid>-lock-` by its protection mode (the parents it
 * makes are `createContainer`, never aimed at).
 */
export const CREATE_OF: Readonly<Record<string, string>> = Object.fromEntries(
  BUILTIN_LOCKS.flatMap((l) => {
    const create = (LOCK_ROWS[l] as LockRow).lockNodeCreate;
    return create ? [[l, create]] : [];
  }),
);
export const AIMABLE_LOCKS = Object.keys(CREATE_OF);
/** How often the wait for the drop looks at the proxies' records of dropped replies. */
const DROP_POLL_MS = 2;

/** A client's own proxy in front of one ZooKeeper server, with that server. */
export type ZkRoute = { node: ZkNode; proxy: TcpProxy; dropsBefore: number };

/**
 * A create reaches ZooKeeper and makes the lock node; its reply never comes back. A random live client's own proxies
 * in front of every ZooKeeper server (client-routes.ts, framed as ZooKeeper packets) are armed to drop the reply to
 * its next create and then reset that connection: the client sees a connection loss, reconnects to its session
 * through another (or the same) route and must decide whether its node exists. Every route is armed because the
 * client may be talking to any server, and all are healed as soon as one dropped: one shot, so a recovery that
 * creates again is not dropped too. Right after the drop the lock directory is read on the server that made the node,
 * on its own port: a child named by the path the create asked for, ephemeral to a live session (ZooKeeper deletes a
 * session's nodes when it ends), is the server's effect; none is a miss. When the acquire in progress at the drop is
 * granted, the directory is read again: one node with the client's prefix, the same, is the idempotent recovery
 * (fencepost's recipe finds its node by prefix, as Curator's protected mode does); two is a second node.
 *
 * The fault ends (heal) once that acquire has completed, or after the story wait.
 */
export const replyLossCreate: FaultExecutor<'reply-loss-create'> = {
  name: 'reply-loss-create',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    !servers.zk
      ? `--lock=${lock} uses no ZooKeeper server`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `reply-loss-create aims at an acquire by its ZooKeeper create and finds the node by the recipe's per-client prefix, known for --lock=${AIMABLE_LOCKS.join(', ')} only`,
  unavailable: (env) =>
    replyLossCreate.refusal(env.servers, env.config.lock) ??
    (zkRoutes(env, 0).length ? null : 'the clients do not reach ZooKeeper through proxies of their own'),
  async start(ctx) {
    const { config, journal } = ctx;
    const client = aimedClient(ctx, (slot) => zkRoutes(ctx, slot).length > 0);
    if (!client) return null;
    const routes = zkRoutes(ctx, client.slot);
    const dropped = () => routes.filter((r) => r.proxy.droppedReplies().length > r.dropsBefore);
    // The acquire in progress at the drop completes after it: the first acquire completion of this process once a
    // reply was dropped. Watched from the arming, so a completion that comes before the wait below saw the drop counts.
    const completed = watchFor(
      journal,
      (op) => op.process === client.process && op.f === 'acquire' && op.type !== 'invoke' && dropped().length > 0,
    );
    for (const r of routes) r.proxy.dropNextReply({ command: CREATE_OF[config.lock], then: 'reset' });
    // Opened while the aim waits, so the read right after the drop costs one round trip, not a session's setup.
    const readers = new ZkReaders(ctx);
    for (const r of routes) void readers.on(r.node);
    const outcome: Outcome = { droppedOn: [], after: {} };
    // Ended by the heal too: a heal a script orders right after the acquire waits for the reads, never races them.
    const healing = new AbortController();
    const healed = new Promise<null>((r) => healing.signal.addEventListener('abort', () => r(null), { once: true }));
    const ready = (async () => {
      const first = await firstDrop(dropped, AbortSignal.any([ctx.signal, healing.signal]));
      if (!first) return;
      // One shot: a create the recovery sends again must reach the server and come back.
      for (const r of routes) r.proxy.heal();
      const drop = first.proxy.droppedReplies().at(-1)!;
      outcome.droppedOn = dropped().map((r) => r.node.name);
      outcome.droppedAt =
        journal.sinceOrigin(process.hrtime.bigint()) - Math.round((performance.now() - drop.atMs) * 1e6);
      outcome.path = drop.request.detail;
      if (outcome.path === undefined) return;
      const read = async () => ownChildren(await readers.on(first.node), outcome.path!);
      try {
        outcome.after = await read();
        const op = await Promise.race([completed.seen, healed]);
        if (op?.type === 'ok') outcome.atGrant = await read();
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
    })();
    return {
      targets: [`client p${client.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: { slot: client.slot, process: client.process, ttlMs: config.ttlMs },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await ready;
        completed.stop();
        for (const r of routes) r.proxy.heal();
        await readers.close();
        return { params: endParams(client.process, outcome), note: healNote(client.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  path?: string;
  after: Owners;
  atGrant?: Owners;
  readError?: string;
  droppedAt?: number;
}

/** Client `slot`'s own proxies in front of the ZooKeeper servers, each with its server. */
export function zkRoutes(
  ctx: Pick<FaultContext, 'proxies' | 'cluster' | 'servers'> & { pair?: FaultContext['pair'] },
  slot: number,
): ZkRoute[] {
  const own = clientRoutes(ctx.proxies, slot);
  return lockServers({ redis: 0, etcd: 0, zk: ctx.servers.zk }, ctx.cluster, null).flatMap((s) => {
    const proxy = own.get(s.proxy);
    return proxy && s.node.kind === 'zk'
      ? [{ node: s.node as ZkNode, proxy, dropsBefore: proxy.droppedReplies().length }]
      : [];
  });
}

/** The first route that dropped its aimed reply, or undefined when the run ended first. */
async function firstDrop(dropped: () => ZkRoute[], signal: AbortSignal): Promise<ZkRoute | undefined> {
  while (!signal.aborted && dropped().length === 0) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  return dropped()[0];
}

/**
 * The harness's own sessions, one per server, on its own port (never through a proxy) and as the run's identity
 * (the lock directories' ACL names it). A session on the server that made the node reads what that server applied
 * before it answered the create: another server may not have applied it yet.
 */
export class ZkReaders {
  private readonly sessions = new Map<ZkNode, Promise<ZkSession>>();

  constructor(private readonly ctx: Pick<FaultContext, 'config'>) {}

  on(node: ZkNode): Promise<ZkSession> {
    let s = this.sessions.get(node);
    if (!s) {
      const { ttlMs } = this.ctx.config;
      s = ZkSession.open(node.connectString, ttlMs, runTiming({ ttlMs }).connectTimeoutMs, node.userAuth);
      s.catch(() => {}); // opened ahead of its use: its failure is met where it is used
      this.sessions.set(node, s);
    }
    return s;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.then((x) => x.close()).catch(() => {})));
  }
}

function endParams(process: number, o: Outcome): EndParams<'reply-loss-create'> {
  const params: EndParams<'reply-loss-create'> = { process, droppedOn: o.droppedOn, after: o.after };
  if (o.path !== undefined) params.path = o.path;
  if (o.atGrant !== undefined) params.atGrant = o.atGrant;
  if (o.readError !== undefined) params.readError = o.readError;
  if (o.droppedAt !== undefined) params.droppedAt = o.droppedAt;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `no create of p${process} was seen while armed`;
  const made = Object.keys(o.after);
  if (!made.length)
    return `p${process}'s create reply was dropped on ${o.droppedOn.join(', ')}, but no node of it was read back`;
  return `p${process}'s create made ${made.join(', ')} on ${o.droppedOn.join(', ')}; its reply was dropped`;
}
