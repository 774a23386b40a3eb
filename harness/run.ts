import type { Shutdown } from '../common/shutdown.ts';
import { TeardownScope } from '../common/teardown-scope.ts';
import { routeClientsAlone } from '../nemesis/client-routes.ts';
import { writeTest } from '../store/run-dir.ts';
import { setupResource } from '../workloads/resource.ts';
import { clientSpecs } from './client-specs.ts';
import { concludeRun, type RunOutcome } from './conclude-run.ts';
import { consoleLog } from './console-log.ts';
import { launchClients } from './launch-clients.ts';
import type { Config } from './run-argv.ts';
import type { RunDriver } from './run-driver.ts';
import { planRun } from './run-plan.ts';
import { openRunSite } from './run-site.ts';
import { sealHistory } from './seal-history.ts';
import { startNemesis } from './start-nemesis.ts';
import { startServers } from './start-servers.ts';
import { injectStrayThrow } from './stray-throw.ts';

export type { RunOutcome } from './conclude-run.ts';

/**
 * One test, end to end: plan (provision) → run folder → clients launched → servers and proxies → resource → clients
 * (+ nemesis) until they are done → the normal close → check → report. The plan says whose servers (ours or a
 * target's), how the clients are driven (free or by a scenario's `driver`) and which nemesis strikes; this function
 * starts each the same way whichever it is.
 *
 * Every teardown is deferred to the scope before the thing it undoes starts, so Ctrl-C at any point (the Shutdown
 * runs the steps, newest first) leaves nothing running and the journal on disk, and an error thrown here runs them
 * all before it goes on up. `scope.close()` is the normal end, its order written by the order of the defers below:
 * heal the nemesis, stop the clients gracefully, end the servers' part (a target's keys), read the final state and
 * seal the history, close the proxies, stop the cluster, remove the server network and the clock files.
 */
export async function runTest(
  config: Readonly<Config>,
  shutdown: Shutdown,
  log: (line: string) => void = consoleLog,
  driver?: RunDriver,
): Promise<RunOutcome> {
  // The plan may widen --think for a fault that needs it: from here on the run's config is the plan's.
  const plan = await planRun(config, log, shutdown, driver);
  const { strategy, faults, faultNeeds, servers } = plan;
  config = plan.config;
  await using scope = new TeardownScope(shutdown);

  const site = await openRunSite(plan, scope, shutdown, log);
  const { runDir, clocks, serverNet } = site;
  const { journal, stats, pool, closeJournal, stopLaunched } = launchClients(config, site, scope, log);
  const { cluster, proxies, test } = await startServers(plan, site, scope, shutdown, log);
  await setupResource(cluster.pg!.connectionConfig(), config.accounts);

  const built = clientSpecs(config, strategy, cluster, proxies, faultNeeds, servers.clientTarget());
  const specs = plan.clients.specs(built.specs);
  // A fault that holds one client's traffic (delay-write): each client gets proxies of its own, chained before the shared ones.
  if (faultNeeds.ownClientRoutes)
    await routeClientsAlone(specs, proxies, { lockSessions: faultNeeds.lockSessionRoutes });
  scope.atClose(
    'read the final state, seal the history',
    () => sealHistory(journal, cluster, config.accounts, runDir),
    {
      takesOver: [closeJournal],
    },
  );
  scope.atClose("end the servers' part", () => servers.end(test, runDir));
  scope.defer('stop clients', () => pool.killAndWait(), {
    normally: () => pool.stop(built.stopGraceMs),
    takesOver: [stopLaunched],
  });
  const nemesis = await startNemesis(
    plan.nemesis,
    { config, faults, servers: strategy.servers, cluster, clients: pool, proxies, journal, clocks, serverNet, log },
    { runDir, test },
    scope,
    shutdown,
  );

  await pool.start(specs);
  injectStrayThrow('mid-run', journal);
  const aborted = servers.watch(journal);
  Object.assign(test, await plan.clients.run({ config, journal, pool, nemesis, stats, log, aborted }));
  writeTest(runDir, test);
  await scope.close();

  const outcome = await concludeRun(config, runDir, faults, log);
  return test.stoppedEarly && 'atS' in test.stoppedEarly
    ? { ...outcome, stoppedEarlyAtS: test.stoppedEarly.atS }
    : outcome;
}
