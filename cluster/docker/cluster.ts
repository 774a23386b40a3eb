import type { PidRegistry } from '../../common/pid-registry.ts';
import type { Cluster, ClusterSpec } from '../cluster.ts';
import { assembleCluster } from '../cluster-layout.ts';
import { ContainerHost } from './container-host.ts';
import { connectDockerEngine } from './engine.ts';
import { ensureNodeImage } from './ensure-image.ts';

/**
 * The docker backend: one container per node, all from the one node image, on host networking (so every server
 * is on 127.0.0.1 at a port chosen at run time, as with the local backend). Throws a `missing-dependency` error
 * (exit 254) with the commands to run when no engine answers. `_pids` is unused: containers are found by label,
 * not pid, when `cleanup` looks for leftovers.
 */
export async function createDockerCluster(
  spec: ClusterSpec,
  runDir: string,
  _pids: PidRegistry,
  log: (line: string) => void = (l) => console.error(l),
): Promise<Cluster> {
  const docker = await connectDockerEngine();
  const image = await ensureNodeImage(docker, log);
  const host = new ContainerHost(docker, image, runDir);
  return assembleCluster(spec, runDir, host, () => host.dispose());
}
