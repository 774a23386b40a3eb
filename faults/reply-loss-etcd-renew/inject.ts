import { setTimeout as sleepFor } from 'node:timers/promises';
import type { EndParams } from '../evidence.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import type { NemesisConfig } from '../../nemesis/nemesis.ts';
import {
  etcdRoutes,
  firstEtcdDrop,
  MemberReaders,
  noOwnEtcdRoutes,
  type EtcdRoute,
} from '../reply-loss-etcd-acquire/inject.ts';

/** What a heal waits beyond a keep-alive period for the keep-alive it aims at: its round trip and a slow timer. */
const KEEP_ALIVE_MARGIN_MS = 500;
/** How long the fault waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The call aimed at: the lease keep-alive stream (etcd-calls.ts names it so); each message on it is one renewal. */
const KEEP_ALIVE_CALL = 'Lease/LeaseKeepAlive';
/** A keep-alive etcd carried out answers `alive TTL <s>`; one for a lease it no longer knows, `expired`. */
const RENEWED_ANSWER = 'alive';
/** The locks whose lease is kept alive on that stream (their own recipes). */
export const AIMABLE_LOCKS = ['etcd'];
/**
 * The least TTL the story can be told with: etcd reports a lease's remaining TTL in whole seconds, so a renewal shows
 * only when the keep-alive period (TTL/3) is longer than a second.
 */
export const MIN_TTL_MS = 4_000;

/** Why the options leave this fault nothing it could prove: a TTL too short for etcd's whole seconds. */
export function ttlRefusal(config: Readonly<Pick<NemesisConfig, 'ttlMs'>>): string | null {
  return config.ttlMs < MIN_TTL_MS
    ? `a keep-alive's renewal shows in etcd's whole-second TTL only when the keep-alive period (TTL/3) exceeds a second: give --ttl=${MIN_TTL_MS + 2000} or more`
    : null;
}

/**
 * A keep-alive reaches etcd and renews the lease; its answer never comes back. Aimed at the next client to enter its
 * critical section: its own proxies in front of every etcd member (framed as gRPC) are armed to drop the answer to
 * its next keep-alive message that etcd answered `alive`, then to reset that connection; all are healed as soon as
 * one dropped. Right after the drop the lease is read on a member (LeaseTimeToLive): a remaining TTL back at its
 * granted TTL is the server's effect. The client's library retries its keep-alive stream on its own; the fault ends
 * once the answer was dropped and the lease read, or after the story wait.
 */
export const replyLossEtcdRenew: FaultExecutor<'reply-loss-etcd-renew'> = {
  name: 'reply-loss-etcd-renew',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    !servers.etcd
      ? `--lock=${lock} uses no etcd member`
      : AIMABLE_LOCKS.includes(lock)
        ? null
        : `reply-loss-etcd-renew aims at the lease keep-alive a client library sends on its own, known for --lock=${AIMABLE_LOCKS.join(', ')} only`,
  optionRefusal: ttlRefusal,
  unavailable: (env) =>
    replyLossEtcdRenew.refusal(env.servers, env.config.lock) ?? ttlRefusal(env.config) ?? noOwnEtcdRoutes(env),
  async start(ctx) {
    const { clients, config } = ctx;
    let routes: EtcdRoute[] = [];
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && etcdRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = etcdRoutes(ctx, s.slot);
        for (const r of routes)
          r.proxy.dropNextReply({ command: KEEP_ALIVE_CALL, replyIs: RENEWED_ANSWER, then: 'reset' });
      },
    );
    if (!section) return null;
    const before = counts(routes);
    const readers = new MemberReaders();
    for (const r of routes) readers.warm(r.node); // logged in now: the read after the drop is one round trip
    const outcome: Outcome = { droppedOn: [] };
    const healing = new AbortController();
    const ready = (async () => {
      const first = await firstEtcdDrop(routes, AbortSignal.any([ctx.signal, healing.signal]));
      if (!first) return;
      for (const r of routes) r.proxy.heal();
      const { route, drop } = first;
      Object.assign(outcome, { droppedOn: [route.node.name], lease: drop.request.lease, answer: drop.reply.detail });
      if (outcome.lease === undefined) return;
      try {
        const res = await leaseTimeToLive(readers, route, outcome.lease);
        outcome.ttlAfterS = res.ttlS;
        outcome.grantedTtlS = res.grantedS;
        outcome.readAfterMs = Math.round(performance.now() - drop.atMs);
      } catch (err) {
        outcome.readError = err instanceof Error ? err.message : String(err);
      }
      const after = counts(routes);
      outcome.droppedBytes = after.droppedToClient - before.droppedToClient;
      outcome.resets = after.resets - before.resets;
    })();
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
        ttlMs: config.ttlMs,
      },
      holdMs: config.storyWaitMs,
      ready,
      async heal() {
        // A keep-alive goes out every TTL/3 on its own, not at a step: a heal a script orders right after the strike
        // waits up to one period (and a margin) for it, rather than end the shot before the renewal it aims at.
        await Promise.race([
          ready,
          sleepFor(config.ttlMs / 3 + KEEP_ALIVE_MARGIN_MS, undefined, { signal: ctx.signal }).catch(() => {}),
        ]);
        healing.abort();
        await ready;
        for (const r of routes) r.proxy.heal();
        readers.close();
        return { params: endParams(section, outcome), note: healNote(section.process, outcome) };
      },
    };
  },
};

interface Outcome {
  droppedOn: string[];
  lease?: string;
  answer?: string;
  ttlAfterS?: number;
  grantedTtlS?: number;
  readAfterMs?: number;
  readError?: string;
  droppedBytes?: number;
  resets?: number;
}

/** The routes' proxies' counts, summed: what the drop and its reset add to. */
function counts(routes: readonly EtcdRoute[]) {
  let droppedToClient = 0;
  let resets = 0;
  for (const r of routes) {
    const c = r.proxy.counters();
    droppedToClient += c.droppedToClient;
    resets += c.resets;
  }
  return { droppedToClient, resets };
}

/** LeaseTimeToLive of `lease` on the route's member: its remaining and granted TTL, in whole seconds. */
async function leaseTimeToLive(readers: MemberReaders, route: EtcdRoute, lease: string) {
  const res = await readers.on(route.node).leaseClient.leaseTimeToLive({ ID: lease, keys: false });
  return { ttlS: Number(res.TTL), grantedS: Number(res.grantedTTL) };
}

function endParams(s: { process: number; account: number }, o: Outcome): EndParams<'reply-loss-etcd-renew'> {
  const params: EndParams<'reply-loss-etcd-renew'> = { process: s.process, account: s.account, droppedOn: o.droppedOn };
  if (o.lease !== undefined) params.lease = o.lease;
  if (o.answer !== undefined) params.answer = o.answer;
  if (o.ttlAfterS !== undefined) params.ttlAfterS = o.ttlAfterS;
  if (o.grantedTtlS !== undefined) params.grantedTtlS = o.grantedTtlS;
  if (o.readAfterMs !== undefined) params.readAfterMs = o.readAfterMs;
  if (o.readError !== undefined) params.readError = o.readError;
  if (o.droppedBytes !== undefined) params.droppedBytes = o.droppedBytes;
  if (o.resets !== undefined) params.resets = o.resets;
  return params;
}

function healNote(process: number, o: Outcome): string {
  if (!o.droppedOn.length) return `p${process}'s keep-alive answer was never dropped (no renewal seen while armed)`;
  const ttl = o.ttlAfterS === undefined ? 'not read' : `${o.ttlAfterS} s of ${o.grantedTtlS} s`;
  return `p${process}'s keep-alive of lease ${o.lease} (${o.answer}) was dropped on ${o.droppedOn.join(', ')}; its TTL then ${ttl}`;
}
