import type { AnyCluster } from '../cluster/cluster.ts';
import { createCluster } from '../cluster/create-cluster.ts';
import { serverVersions } from '../cluster/versions.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { TeardownScope } from '../common/teardown-scope.ts';
import type { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import { writeTest } from '../store/run-dir.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { startProxies } from './client-proxies.ts';
import { retireCluster } from './retire-cluster.ts';
import type { RunPlan } from './run-plan.ts';
import type { RunSite } from './run-site.ts';
import { injectStrayThrow } from './stray-throw.ts';
import { testRecord } from './test-record.ts';

/** The run's servers, up, and what the run records of them. */
export interface StartedServers {
  cluster: AnyCluster;
  /** The proxies of ours the clients reach the servers through, by node name (client-proxies.ts). */
  proxies: Map<string, TcpProxy>;
  test: StoredTestJson;
}

/**
 * The cluster, up, and the proxies in front of it: made and started, with its stop (and the mark that the run did not
 * end normally) deferred first; the test record written as soon as the nodes are known, and again with their versions.
 */
export async function startServers(
  plan: RunPlan,
  { runDir, pids, clocks, serverNet }: RunSite,
  scope: TeardownScope,
  shutdown: Shutdown,
  log: (line: string) => void,
): Promise<StartedServers> {
  const { config, strategy, faults, faultNeeds, servers } = plan;
  const local = await createCluster(config.backend, servers.spec({ clocks, serverNet }), runDir, pids, log);
  const cluster = servers.cluster(local);
  const test: StoredTestJson = { ...testRecord(config, strategy, faults, faultNeeds, cluster), ...servers.record() };
  writeTest(runDir, test);
  log(
    `fencepost: --lock=${config.lock} --seed=${config.seed}, faults: ${faults.join(', ') || 'none'}; run dir ${runDir}`,
  );

  scope.defer('stop cluster', async () => {
    injectStrayThrow('teardown');
    await retireCluster(cluster, runDir);
  });
  scope.ifAborted('mark the run incomplete', () =>
    writeTest(runDir, {
      ...test,
      ...(shutdown.reason === 'signal' ? { interrupted: true } : { failed: true }),
    }),
  );
  const t0 = performance.now();
  await cluster.start();
  log(`fencepost: ${cluster.nodes.length} nodes ready in ${Math.round(performance.now() - t0)} ms`);
  injectStrayThrow('setup');
  Object.assign(test.versions, await serverVersions(cluster.nodes));
  writeTest(runDir, test);
  const proxies = await startProxies(cluster, faultNeeds, scope, servers.allowHosts);
  return { cluster, proxies, test };
}
