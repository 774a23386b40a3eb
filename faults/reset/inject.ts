import { setTimeout as sleepFor } from 'node:timers/promises';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheSection } from '../../nemesis/fault-needs.ts';
import { noOwnRedisRoutes, redisRoutes, type Route } from '../reply-loss/inject.ts';

/** How long reset waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/**
 * How long the heal waits for the holder to dial again. fencepost's Redis clients retry every 50 ms; a library's
 * default backoff (ioredis: 50 ms more per try) reconnects within this on its first tries.
 */
const RECONNECT_WAIT_MS = 3_000;
/** How often the wait looks at the proxies' counters. */
const RECONNECT_POLL_MS = 5;

/** A holder's route with its counters before the reset. */
type ResetRoute = Route & { resetsBefore: number; connectionsBefore: number };

/**
 * A holder's connections reset mid-section: the visible failure, where partition's stall is silent. Aimed at the next
 * client to enter its critical section: inside the journal listener, as its read completes and before it writes,
 * each of its own proxies in front of a Redis node resets every connection it has open (RST: ECONNRESET at the
 * client). The heal then waits a little for the client to notice — a new connection accepted on its route — so its
 * step in a script ends with the client dialled back in, and the judge reads the rest from the history (its next
 * renewal or release failing, for a client that had not dialled yet).
 */
export const reset: FaultExecutor<'reset'> = {
  name: 'reset',
  needs: { ownClientRoutes: true, clientProxies: true, liveOps: true, shotMs: pastTheSection },
  refusal: (servers, lock) =>
    servers.redis
      ? null
      : `--lock=${lock} uses no Redis node: reset resets a holder's own Redis connections; etcd's, ZooKeeper's and Postgres's are not reset by it yet (a Postgres reset ends the session, and its lock with it: kill-session's story)`,
  unavailable: (env) => reset.refusal(env.servers, env.config.lock) ?? noOwnRedisRoutes(env),
  async start(ctx) {
    const { clients, journal } = ctx;
    let routes: ResetRoute[] = [];
    let resetAt = 0;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) =>
        !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && redisRoutes(ctx, s.slot).length > 0,
      (s) => {
        routes = redisRoutes(ctx, s.slot).map((r) => {
          const c = r.proxy.counters();
          return { ...r, resetsBefore: c.resets, connectionsBefore: c.connections };
        });
        for (const r of routes) r.proxy.resetConnections();
        resetAt = journal.sinceOrigin(process.hrtime.bigint());
      },
    );
    if (!section) return null;
    const resets = Object.fromEntries(routes.map((r) => [r.node.name, r.proxy.counters().resets - r.resetsBefore]));
    const resetOn = routes.filter((r) => resets[r.node.name] > 0).map((r) => r.node.name);
    const waitFrom = performance.now();
    return {
      targets: [`client p${section.process} → ${routes.map((r) => r.node.name).join(', ')}`],
      params: {
        slot: section.slot,
        process: section.process,
        account: section.account,
        readIndex: section.readIndex,
        resetOn,
        resets,
        resetAt,
      },
      holdMs: 0,
      async heal() {
        const reset = routes.filter((r) => resetOn.includes(r.node.name));
        const reconnectedOn = await waitForReconnects(
          reset,
          AbortSignal.any([ctx.interrupted, AbortSignal.timeout(RECONNECT_WAIT_MS)]),
        );
        const waitedMs = Math.round(performance.now() - waitFrom);
        const note = reconnectedOn.length
          ? `p${section.process} dialled ${reconnectedOn.join(', ')} again after the reset`
          : `p${section.process} had not dialled again ${waitedMs} ms after the reset`;
        return { params: { process: section.process, reconnectedOn, waitedMs }, note };
      },
    };
  },
};

/** Waits until every reset route accepted a new connection, or the signal ends the wait; the nodes that did. */
async function waitForReconnects(routes: ResetRoute[], signal: AbortSignal): Promise<string[]> {
  const back = () => routes.filter((r) => r.proxy.counters().connections > r.connectionsBefore).map((r) => r.node.name);
  while (!signal.aborted && back().length < routes.length)
    await sleepFor(RECONNECT_POLL_MS, undefined, { signal }).catch(() => {});
  return back();
}
