import type { ClientSpec } from '../workloads/client-protocol.ts';
import type { ProxyProtocol } from './proxy/protocol-framings.ts';
import { TcpProxy } from './proxy/tcp-proxy.ts';

/**
 * Per-client routes: each client process gets a proxy of its own in front of every shared proxy it talks to
 * (Postgres, the lock servers), chained — client → its own proxy → the shared proxy → the server.
 *
 * Why a chain rather than moving clients off the shared proxies: the faults that act on the shared ones
 * (partition, latency, a failover's retarget, a kill's connection reset) keep reaching every client unchanged,
 * while a fault can now aim at one client's traffic only — `delay-write` holds the lock holder's outgoing
 * bytes and nobody else's. A shared proxy can't tell clients' connections apart (they all come from
 * 127.0.0.1), so one listening port per client is what makes them distinguishable. Only runs with a per-client
 * fault get routes: the extra hop is not paid otherwise.
 */

const SEPARATOR = '→';

/**
 * The route name of a client's own proxy for its lock's Postgres sessions (LockContext.postgresUrl: advisory-lock's
 * session per acquire), apart from its bank connection's `pg` route: framed as Postgres so a fault can aim at one
 * statement (`pg_advisory_unlock`), while the bank's reads and writes pass unparsed and a hold of the `pg` route
 * (delay-write) holds what it always held. Started only for a fault that asks for it (FaultNeeds.lockSessionRoutes).
 */
export const LOCK_SESSIONS = 'pg-lock';

/** Key, in the run's proxy map, of client `slot`'s own proxy in front of the shared proxy `upstream` (`pg`, `etcd[1]`…). */
export function clientRoute(slot: number, upstream: string): string {
  return `client-${slot}${SEPARATOR}${upstream}`;
}

/** Client `slot`'s own proxies, by the shared proxy each sits in front of. Empty when the run has no routes. */
export function clientRoutes(proxies: ReadonlyMap<string, TcpProxy>, slot: number): Map<string, TcpProxy> {
  const prefix = clientRoute(slot, '');
  const routes = new Map<string, TcpProxy>();
  for (const [name, proxy] of proxies) if (name.startsWith(prefix)) routes.set(name.slice(prefix.length), proxy);
  return routes;
}

/**
 * The protocol a route in front of `upstream` carries, when the proxy can frame it: RESP for a Redis node, so the
 * reply-loss faults can aim at one request (a release) on the client's own connection; ZooKeeper's packets for a
 * ZooKeeper server, so reply-loss-create can aim at a create; gRPC over HTTP/2 for an etcd member, so the etcd
 * reply-loss faults can aim at one call. The others are left unframed: framing costs a parse of every byte, and no
 * per-request fault aims at them yet.
 */
function routeProtocol(upstream: string): ProxyProtocol | undefined {
  if (upstream.startsWith('redis')) return 'resp';
  if (upstream === LOCK_SESSIONS) return 'postgres';
  if (upstream.startsWith('etcd[')) return 'etcd-grpc';
  return upstream.startsWith('zk[') ? 'zookeeper' : undefined;
}

/**
 * Client `slot`'s own proxies that frame Redis, ZooKeeper or etcd: those a per-request fault can aim at. (A
 * lock-session route is framed too, for the Postgres reply-loss faults alone.)
 */
export function framedRoutes(proxies: ReadonlyMap<string, TcpProxy>, slot: number): Map<string, TcpProxy> {
  const named = (upstream: string) => ['resp', 'zookeeper', 'etcd-grpc'].includes(routeProtocol(upstream) ?? '');
  return new Map([...clientRoutes(proxies, slot)].filter(([upstream]) => named(upstream)));
}

/**
 * Starts the routes for every spec and points the spec's endpoints (pg, ctx.redis, ctx.etcd, ctx.zookeeper,
 * ctx.dynamodb) at them. Each new proxy goes into `proxies`, so the nemesis's final sweep heals it and the run closes
 * it with the others. An endpoint that is not one of `proxies` (it can't be, today) is left as it is, direct.
 */
export async function routeClientsAlone(
  specs: ClientSpec[],
  proxies: Map<string, TcpProxy>,
  options: { lockSessions?: boolean } = {},
): Promise<void> {
  const sharedByPort = new Map<number, string>();
  for (const [name, proxy] of proxies) sharedByPort.set(proxy.port, name);
  for (const spec of specs) {
    /** The port of the client's own proxy in front of the shared one on `port`, named `as` (its upstream's name). */
    const own = async (port: number, as?: string): Promise<number> => {
      const upstream = sharedByPort.get(port);
      if (upstream === undefined) return port;
      const key = clientRoute(spec.slot, as ?? upstream);
      let proxy = proxies.get(key);
      if (!proxy) {
        proxy = await TcpProxy.start({ targetPort: port, protocol: routeProtocol(as ?? upstream) });
        proxies.set(key, proxy);
      }
      return proxy.port;
    };
    if (spec.pg.port !== undefined) spec.pg = { ...spec.pg, port: await own(spec.pg.port) };
    if (options.lockSessions && spec.ctx.postgresUrl) {
      const u = new URL(spec.ctx.postgresUrl);
      u.port = String(await own(Number(u.port), LOCK_SESSIONS));
      spec.ctx.postgresUrl = u.toString();
    }
    const ctx = spec.ctx;
    ctx.redis = await Promise.all(ctx.redis.map(async (e) => ({ ...e, port: await own(e.port) })));
    ctx.etcd = await Promise.all(
      ctx.etcd.map(async (url) => {
        const u = new URL(url);
        u.port = String(await own(Number(u.port)));
        return u.origin;
      }),
    );
    const hosts = ctx.zookeeper ? ctx.zookeeper.split(',') : [];
    ctx.zookeeper = (
      await Promise.all(
        hosts.map(async (hp) => {
          const colon = hp.lastIndexOf(':');
          return `${hp.slice(0, colon)}:${await own(Number(hp.slice(colon + 1)))}`;
        }),
      )
    ).join(',');
    if (ctx.dynamodb) {
      const u = new URL(ctx.dynamodb.endpoint);
      u.port = String(await own(Number(u.port)));
      ctx.dynamodb = { ...ctx.dynamodb, endpoint: u.origin };
    }
  }
}
