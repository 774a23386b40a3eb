import { setTimeout as sleepFor } from 'node:timers/promises';
import { aimedClient, type FaultExecutor } from '../../nemesis/fault.ts';
import { framedRoutes } from '../../nemesis/client-routes.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';

/** How long hold-request waits for its client to send the request before giving up this turn. */
const CATCH_TIMEOUT_MS = 10_000;
/** How often the wait looks at the proxies' records of caught requests (as reply-loss looks at its drops). */
const CATCH_POLL_MS = 2;

/** One of the client's own framed routes: the server behind it (`redis[0]`) and its proxy, with its catches before. */
interface Route {
  node: string;
  proxy: TcpProxy;
  before: number;
}

/**
 * A request delayed in the network, aimed by its frame: a live client's own proxies in front of the lock's Redis or
 * ZooKeeper servers (client-routes.ts, framed) hold its next request — the one a script names by its command
 * (`hold-request A SET`), else whatever it sends next — before the server sees any byte of it, with everything the
 * connection sends after it; its earlier requests and the other clients flow. The injection starts once the request
 * is caught, so its `start` record says when, and which client op was in progress then (the judge reads it from the
 * history). Delivered, in order, at heal: after `--pause` ms on a schedule, at its heal step in a script.
 *
 * Unlike delay-write, which holds everything a holder sends from its read on, this reaches inside one client step: the
 * SET of an acquire that checked with a GET first, held while another client checks and sets.
 */
export const holdRequest: FaultExecutor<'hold-request'> = {
  name: 'hold-request',
  needs: { ownClientRoutes: true, clientProxies: true, shotMs: pastTheLease },
  refusal: (servers, lock) =>
    servers.redis || servers.zk
      ? null
      : `--lock=${lock} uses no Redis or ZooKeeper node: hold-request names a request by its framing (RESP, ZooKeeper's packets)`,
  unavailable: (env) =>
    holdRequest.refusal(env.servers, env.config.lock) ??
    (framedRoutes(env.proxies, 0).size
      ? null
      : 'the clients do not reach Redis or ZooKeeper through proxies of their own'),
  async start(ctx) {
    const { config, journal } = ctx;
    const client = aimedClient(ctx, (slot) => framedRoutes(ctx.proxies, slot).size > 0);
    if (!client) return null;
    // Armed before the first await: a script's next step (`start A acquire`) may send the request at once.
    const routes: Route[] = [...framedRoutes(ctx.proxies, client.slot)].map(([node, proxy]) => ({
      node,
      proxy,
      before: proxy.heldRequests().length,
    }));
    for (const r of routes) r.proxy.holdNextRequest(ctx.request);
    const heldOn = await waitForCatch(routes, AbortSignal.any([ctx.aim, AbortSignal.timeout(CATCH_TIMEOUT_MS)]));
    if (!heldOn.length) {
      for (const r of routes) r.proxy.heal();
      return null;
    }
    const heldAt = journal.sinceOrigin(process.hrtime.bigint());
    const heldFrom = performance.now();
    const request = routes
      .find((r) => r.node === heldOn[0])!
      .proxy.heldRequests()
      .at(-1)!.request;
    const command = ctx.request ?? 'any';
    return {
      targets: [`client p${client.process} → ${heldOn.join(', ')}`],
      params: {
        slot: client.slot,
        process: client.process,
        command,
        heldOn,
        ...(request.detail !== undefined ? { key: request.detail } : {}),
        heldAt,
      },
      note: `p${client.process}'s ${request.name ?? 'request'}${request.detail ? ` ${request.detail}` : ''} held on ${heldOn.join(', ')}`,
      holdMs: config.pauseMs,
      async heal() {
        for (const r of routes) r.proxy.heal();
        const heldMs = Math.round(performance.now() - heldFrom);
        const cutShort = ctx.signal.aborted;
        return {
          params: { process: client.process, heldMs, ...(cutShort ? { cutShort: true as const } : {}) },
          note: `p${client.process}'s held ${request.name ?? 'request'} delivered after ${heldMs} ms${cutShort ? ' (the run was ending)' : ''}`,
        };
      },
    };
  },
};

/** Waits until some route caught its request (then gives the others a moment: Redlock's fan-out); their nodes. */
async function waitForCatch(routes: Route[], signal: AbortSignal): Promise<string[]> {
  const caught = () => routes.filter((r) => r.proxy.heldRequests().length > r.before).map((r) => r.node);
  while (!signal.aborted && caught().length === 0) await sleepFor(CATCH_POLL_MS, undefined, { signal }).catch(() => {});
  if (caught().length === 0 || caught().length === routes.length) return caught();
  await sleepFor(CATCH_POLL_MS * 5);
  return caught();
}
