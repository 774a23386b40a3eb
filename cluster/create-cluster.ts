import type { PidRegistry } from '../common/pid-registry.ts';
import type { Cluster, ClusterSpec } from './cluster.ts';
import { createLocalCluster } from './local/cluster.ts';

export type Backend = 'local' | 'docker';

/** The cluster of `--backend`. The docker backend is loaded only when asked for (dockerode, testcontainers). */
export async function createCluster(
  backend: Backend,
  spec: ClusterSpec,
  runDir: string,
  pids: PidRegistry,
  log: (line: string) => void,
): Promise<Cluster> {
  if (backend === 'local') return createLocalCluster(spec, runDir, pids);
  const { createDockerCluster } = await import('./docker/cluster.ts');
  return createDockerCluster(spec, runDir, pids, log);
}

/**
 * What the host itself needs for a backend: everything for local; for docker only the C compiler of the clock
 * shim (built on the host, loaded by the servers in their containers through the mounted clock folder).
 */
export function hostRequirements<R extends string>(backend: Backend, needs: R[]): R[] {
  return backend === 'local' ? needs : needs.filter((n) => n === 'cc');
}
