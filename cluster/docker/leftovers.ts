import { stillOurs } from '../../common/pid-registry.ts';
import { CONTAINER_LABEL } from './container-host.ts';
import { findDockerEngine } from './engine.ts';

/**
 * Remove containers of ours whose harness is gone (kill -9, a lost terminal): there is no Ryuk to reap them. A
 * container belongs to a live run while the harness process named by its labels (pid + start time, so a reused
 * pid doesn't count) still runs. Returns how many were removed; 0 when no engine answers (nothing can be left).
 */
export async function removeLeftoverContainers(log: (line: string) => void): Promise<number> {
  const docker = await findDockerEngine();
  if (!docker) return 0;
  const containers = await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL.marker] } });
  let removed = 0;
  for (const info of containers) {
    const labels = info.Labels ?? {};
    const pid = Number(labels[CONTAINER_LABEL.harnessPid]);
    const start = labels[CONTAINER_LABEL.harnessStart];
    const alive =
      Number.isInteger(pid) &&
      pid > 0 &&
      stillOurs({ name: '', pid, marker: '\0', startTime: start ? Number(start) : undefined });
    if (alive) continue;
    const c = docker.getContainer(info.Id);
    // A paused container must be thawed before the engine will kill it.
    if (info.State === 'paused') await c.unpause().catch(() => {});
    await c.remove({ force: true, v: true }).catch(() => {});
    log(
      `removed container ${info.Names?.[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)} (${labels[CONTAINER_LABEL.node] ?? '?'}) of ${labels[CONTAINER_LABEL.run] ?? 'an unknown run'}`,
    );
    removed++;
  }
  return removed;
}
