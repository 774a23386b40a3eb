import fs from 'node:fs';
import type { Cluster } from '../cluster/cluster.ts';
import { removeSecrets } from '../cluster/credentials.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * Stop a command's cluster and remove what only its servers needed: their data (`nodes/`) and the passwords
 * (`secrets.json`) — dead once the servers are, and one more thing `serve`, an artifact upload or a backup could hand
 * out. Every command that boots servers (a run, `doctor`, `lock-check`) ends through here; the logs stay.
 */
export async function retireCluster(cluster: Pick<Cluster, 'teardown'>, runDir: string): Promise<void> {
  await cluster.teardown();
  fs.rmSync(runPath(runDir, 'nodes'), { recursive: true, force: true });
  removeSecrets(runDir);
}
