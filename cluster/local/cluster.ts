import type { PidRegistry } from '../../common/pid-registry.ts';
import type { Cluster, ClusterSpec } from '../cluster.ts';
import { assembleCluster } from '../cluster-layout.ts';
import { ProcessHost } from './process-host.ts';

/** The local backend: every server a child process of the harness, its pids recorded in `pids` for `cleanup`. */
export function createLocalCluster(spec: ClusterSpec, runDir: string, pids: PidRegistry): Promise<Cluster> {
  return assembleCluster(spec, runDir, new ProcessHost(pids));
}
