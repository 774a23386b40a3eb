import { pickSome, type FaultContext, type FaultExecutor } from '../../nemesis/fault.ts';
import { lockServers, type LockServer } from '../../nemesis/lock-servers.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';

/** A random non-empty subset of the lock's servers (all of them for a single server), seeded. */
export function someLockServers(ctx: FaultContext): LockServer[] {
  const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair);
  return pickSome(ctx.random, servers, 1 + Math.floor(ctx.random() * servers.length));
}

/**
 * Client↔server partition through the harness's proxies: for `--pause` ms the proxies of a random subset of the
 * lock's servers stop forwarding both ways and hold their connections open (bytes wait, as over a real
 * partition; new connections are held too). Servers still talk to each other: this cuts clients off, not the
 * cluster in two.
 */
export const partition: FaultExecutor<'partition'> = {
  name: 'partition',
  needs: { clientProxies: true },
  refusal: () => null,
  unavailable: (env) =>
    lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to partition',
  async start(ctx) {
    const targets = someLockServers(ctx);
    if (!targets.length || ctx.signal.aborted) return null;
    const before = heldBytesOf(
      ctx.proxies,
      targets.map((t) => t.proxy),
    );
    for (const t of targets) ctx.proxies.get(t.proxy)?.partition();
    return {
      targets: targets.map((t) => `clients ⇹ ${t.node.name}`),
      params: { durationMs: ctx.config.pauseMs, proxies: targets.map((t) => t.proxy) },
      holdMs: ctx.config.pauseMs,
      async heal() {
        // Counted as the proxies read them, before they are released: what the partition held.
        const heldBytes = heldBytesSince(ctx.proxies, before);
        for (const t of targets) ctx.proxies.get(t.proxy)?.heal();
        return { params: { heldBytes } };
      },
    };
  },
};

/** Each proxy's held-byte counter now (tcp-proxy.ts `heldBytes`): a partition or latency reads it before it starts. */
export function heldBytesOf(proxies: ReadonlyMap<string, TcpProxy>, names: readonly string[]): Map<string, number> {
  return new Map(names.map((n) => [n, proxies.get(n)?.counters().heldBytes ?? 0]));
}

/** Bytes each proxy held or delayed since `before`: the fault's evidence in its end record. */
export function heldBytesSince(
  proxies: ReadonlyMap<string, TcpProxy>,
  before: ReadonlyMap<string, number>,
): Record<string, number> {
  return Object.fromEntries(
    [...before].map(([n, b]) => [n, Math.max(0, (proxies.get(n)?.counters().heldBytes ?? b) - b)]),
  );
}
