import { pick, type FaultExecutor } from '../../nemesis/fault.ts';
import { lockServers } from '../../nemesis/lock-servers.ts';
import { heldBytesOf, heldBytesSince, someLockServers } from '../partition/inject.ts';
import { runTiming } from '../../common/run-timing.ts';

/**
 * Client↔server latency through the harness's proxies: for `--pause` ms every chunk to and from a random subset
 * of the lock's servers is held `ms` in each direction, in order (a request/response costs 2 × ms).
 */
export const latency: FaultExecutor<'latency'> = {
  name: 'latency',
  needs: { clientProxies: true },
  refusal: () => null,
  unavailable: (env) =>
    lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to slow down',
  async start(ctx) {
    const targets = someLockServers(ctx);
    const ms = pick(ctx.random, runTiming(ctx.config).latencyChoicesMs);
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
