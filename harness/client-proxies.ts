import type { AnyCluster } from '../cluster/cluster.ts';
import type { TeardownScope } from '../common/teardown-scope.ts';
import { PRIMARY_PROXY } from '../nemesis/failover-pair.ts';
import type { RunNeeds } from '../nemesis/fault-registry.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';

/**
 * Clients reach the servers through proxies of ours when a fault acts there (partition, latency, failover, a held
 * write); otherwise straight to the servers' ports, so the latencies the run records carry no proxy hop. Their
 * closing is deferred first and the map filled one by one, so a failure half-way still closes the rest.
 */
export async function startProxies(
  cluster: AnyCluster,
  faultNeeds: RunNeeds,
  scope: TeardownScope,
  allowHosts: readonly string[],
): Promise<Map<string, TcpProxy>> {
  const proxies = new Map<string, TcpProxy>();
  scope.defer('close proxies', async () => {
    await Promise.all([...proxies.values()].map((p) => p.close()));
  });
  if (faultNeeds.clientProxies) {
    for (const n of cluster.nodes)
      proxies.set(n.name, await TcpProxy.start({ targetPort: n.port, targetHost: n.remote?.host, allowHosts }));
  } else if (cluster.failover) {
    // A pair without client proxies (a server partition of the Redis pair): "the primary" is still a proxy, the
    // one a promotion re-points; every other server is reached directly.
    proxies.set(PRIMARY_PROXY, await TcpProxy.start({ targetPort: cluster.failover.primary.port }));
  }
  return proxies;
}
