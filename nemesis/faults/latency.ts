import { pick, type FaultExecutor } from '../fault.ts';
import { lockServers } from '../lock-servers.ts';
import { heldBytesOf, heldBytesSince, someLockServers } from './partition.ts';

/** One-way delay as a fraction of the TTL: small, a quarter (Redlock's validity shrinks), half (a round trip = TTL). */
const FRACTIONS_OF_TTL = [0.05, 0.25, 0.5];

/**
 * Client↔server latency through the harness's proxies: for `--pause` ms every chunk to and from a random subset
 * of the lock's servers is held `ms` in each direction, in order (a request/response costs 2 × ms).
 */
export const latency: FaultExecutor = {
  name: 'latency',
  needs: { clientProxies: true },
  refusal: () => null,
  unavailable: (env) =>
    lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to slow down',
  async start(ctx) {
    const targets = someLockServers(ctx);
    const ms = Math.max(1, Math.round(pick(ctx.random, FRACTIONS_OF_TTL) * ctx.config.ttlMs));
    if (!targets.length || ctx.signal.aborted) return null;
    const before = heldBytesOf(
      ctx.proxies,
      targets.map((t) => t.proxy),
    );
    for (const t of targets) ctx.proxies.get(t.proxy)?.latency(ms);
    return {
      targets: targets.map((t) => `clients ⇄ ${t.node.name}`),
      params: { durationMs: ctx.config.pauseMs, oneWayMs: ms, proxies: targets.map((t) => t.proxy) },
      holdMs: ctx.config.pauseMs,
      async heal() {
        const heldBytes = heldBytesSince(ctx.proxies, before);
        for (const t of targets) ctx.proxies.get(t.proxy)?.heal();
        return { params: { heldBytes } };
      },
    };
  },
};
