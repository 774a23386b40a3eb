import { CLI } from '../common/cli-name.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { claimRun } from '../common/run-owner.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { TeardownScope } from '../common/teardown-scope.ts';
import { ClockBoard } from '../nemesis/clock/clock-board.ts';
import { ServerNet } from '../nemesis/server-partition/server-net.ts';
import { createRunDir, runPath } from '../store/run-dir.ts';
import type { RunPlan } from './run-plan.ts';

/** Where a run happens on this host: its folder, its pid files, and what its faults rig before anything starts. */
export interface RunSite {
  runDir: string;
  pids: PidRegistry;
  /** The clock shim's files, for a run with clock faults. */
  clocks: ClockBoard | null;
  /** The server network (cgroups and an nftables table), for a run with server partitions. */
  serverNet: ServerNet | null;
}

/**
 * The run's folder, claimed; the servers' own teardown registered first (a target's), then the clock files and the
 * server network with their removal — before the cluster's stop, so they go after the servers stopped.
 */
export async function openRunSite(
  plan: RunPlan,
  scope: TeardownScope,
  shutdown: Shutdown,
  log: (line: string) => void,
): Promise<RunSite> {
  const { config, faultNeeds } = plan;
  const runDir = createRunDir(config.resultsDir, config.lock);
  const pids = new PidRegistry(runPath(runDir, 'pids'));
  claimRun(pids.dir);
  plan.servers.attach(runDir, shutdown);
  const clocks = faultNeeds.clockShim ? await ClockBoard.create(runPath(runDir, 'clock')) : null;
  scope.defer('remove clock files', () => clocks?.dispose());
  const serverNet = faultNeeds.serverNet ? ServerNet.create(runDir, pids.dir) : null;
  scope.defer('remove the server network', () => {
    const left = serverNet?.dispose();
    if (left) log(`fencepost: ${left}; \`${CLI} cleanup\` removes it once this harness is gone`);
  });
  return { runDir, pids, clocks, serverNet };
}
