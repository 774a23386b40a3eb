import { setTimeout as sleepFor } from 'node:timers/promises';
import type { EndParams } from '../evidence.ts';
import { lockDirFor } from '../../locks/zookeeper/zookeeper.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchRelease } from '../reply-loss/inject.ts';
import { ZkReaders, zkRoutes, type ZkRoute } from '../reply-loss-create/inject.ts';
import { ownChildren, type Owners } from '../reply-loss-create/own-children.ts';

/** How long reply-loss-delete waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The request aimed at: ZooKeeper's delete (zookeeper-framing.ts names it), the recipe's release of its lock node. */
const DELETE = 'delete';
/** The locks whose release is such a delete, with a per-client prefix to find the holder's node by (their recipes). */
export const AIMABLE_LOCKS = ['zookeeper'];
/** How often the wait for the drop looks at the proxies' records of dropped replies. */
const DROP_POLL_MS = 2;

/**
 * A release reaches ZooKeeper and deletes the lock node; its reply never comes back (CURATOR-678: a release that met
 * a connection loss, its node in fact gone or kept). Aimed at the next client to enter its critical section: its own
 * proxies in front of every ZooKeeper server (client-routes.ts, framed as ZooKeeper packets) are armed to drop the
 * reply to its next delete, and that connection is kept open as a black hole — nothing the client sends on it
 * arrives, so neither a retry nor a close of its session can delete the node in the meantime. The lock directory's
 * children with the client's prefix (the recipe's `c<slot>-…`) are read as the section begins and, on the server
 * that answered, right after the drop (the harness's own sessions, on the servers' own ports): the holder's node
 * gone well within the session timeout is the delete's effect; still there is a delete that never took effect.
 *
 * The fault ends (heal: the black hole reset) once the holder's release has completed — its call times out at the
 * session timeout — or after the story wait.
 */
export const replyLossDelete: FaultExecutor<'reply-loss-delete'> = {
  name: 'reply-loss-delete',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    !servers.zk
      ? `--lock=${lock} uses no ZooKeeper server`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `reply-loss-delete aims at a release by its ZooKeeper delete and finds the holder's node by the recipe's per-client prefix, known for --lock=${AIMABLE_LOCKS.join(', ')} only`,
  unavailable: (env) =>
    replyLossDelete.refusal(env.servers, env.config.lock) ??
    (zkRoutes(env, 0).length ? null : 'the clients do not reach ZooKeeper through proxies of their own'),
  async start(ctx) {
    const { clients, config, journal } = ctx;
    let routes: ZkRoute[] = [];
    let release: ReturnType<typeof watchRelease> | undefined;
    const readers = new ZkReaders(ctx);
    // Opened while the aim waits, so the reads cost a round trip each, not a session's setup.
    for (const r of zkRoutes(ctx, 0)) void readers.on(r.node);
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && zkRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = zkRoutes(ctx, s.slot);
        release = watchRelease(journal, s.process);
        for (const r of routes) r.proxy.dropNextReply({ command: DELETE, then: 'keep-open' });
      },
    );
    if (!section || !release) {
      await readers.close();
      return null;
    }
    const released = release;
    // The recipe's node names: `c<client>-<random>-lock-<sequence>` in the account's lock directory.
    const mine = `${lockDirFor(`account-${section.account}`)}/c${section.slot}-`;
    const readFrom = performance.now();
    const start: { before: Owners; beforeError?: string } = { before: {} };
    try {
      start.before = await ownChildren(await readers.on(routes[0].node), mine);
    } catch (err) {
      start.beforeError = err instanceof Error ? err.message : String(err);
    }
    const outcome: Outcome = { droppedOn: [], after: {} };
    // Ended by the heal too: a heal a script orders right after the release waits for the read, never races it.
    const healing = new AbortController();
    const signal = AbortSignal.any([ctx.signal, healing.signal]);
    const reads = (async () => {
      const first = await firstDrop(routes, signal);
      if (!first) return false;
      outcome.droppedOn = routes.filter((r) => r.proxy.droppedReplies().length > r.dropsBefore).map((r) => r.node.name);
      outcome.path = first.proxy.droppedReplies().at(-1)!.request.detail;
      try {
        outcome.after = await ownChildren(await readers.on(first.node), mine);
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      outcome.readsApartMs = Math.round(performance.now() - readFrom);
      return true;
    })();
    const ready = reads.then((dropped) => (dropped ? released.completed : undefined));
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        process: section.process,
        ttlMs: config.ttlMs,
        ...start,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        healing.abort();
        await reads;
        released.stop();
        for (const r of routes) r.proxy.heal();
        await readers.close();
        const params = endParams(section, outcome, released.invokeTime());
        return { params, note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  path?: string;
  after: Owners;
  readError?: string;
  readsApartMs?: number;
}

/** The first route that dropped its aimed reply (the client talks to one server at a time), or undefined. */
async function firstDrop(routes: ZkRoute[], signal: AbortSignal): Promise<ZkRoute | undefined> {
  const dropped = () => routes.find((r) => r.proxy.droppedReplies().length > r.dropsBefore);
  while (!signal.aborted && !dropped()) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  return dropped();
}

function endParams(
  s: { process: number; account: number },
  o: Outcome,
  releaseTime: number | undefined,
): EndParams<'reply-loss-delete'> {
  const params: EndParams<'reply-loss-delete'> = {
    process: s.process,
    account: s.account,
    droppedOn: o.droppedOn,
    after: o.after,
  };
  if (o.path !== undefined) params.path = o.path;
  if (o.readError !== undefined) params.readError = o.readError;
  if (o.readsApartMs !== undefined) params.readsApartMs = o.readsApartMs;
  if (releaseTime !== undefined) params.releaseTime = releaseTime;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `p${process}'s delete reply was never dropped (no delete seen while armed)`;
  return `p${process}'s delete of ${o.path ?? 'its node'} had its reply dropped on ${o.droppedOn.join(', ')}`;
}
