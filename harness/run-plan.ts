import { hostRequirements } from '../cluster/create-cluster.ts';
import { provision, type Need, type Requirement } from '../cluster/provision.ts';
import { HarnessError } from '../common/errors.ts';
import type { Shutdown } from '../common/shutdown.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { createNemesis } from '../nemesis/create-nemesis.ts';
import { EXECUTORS, runNeeds, type RunNeeds } from '../nemesis/fault-registry.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { serverNetMissing } from '../nemesis/server-partition/server-net.ts';
import { buildBuiltinLock, lockLibraryOf } from '../workloads/foreign/builtin-build.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { installNpmLockFor } from '../locks/npm-lock-cache.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { drivenClients, scriptedNemesis } from './driven-clients.ts';
import { freeClients } from './free-clients.ts';
import { ourServers } from './our-servers.ts';
import { refuseRedisServer, withRedisServer } from './redis-server-choice.ts';
import type { Config } from './run-argv.ts';
import type { RunClients } from './run-clients.ts';
import type { RunDriver } from './run-driver.ts';
import type { RunServers } from './run-servers.ts';
import type { NemesisOf } from './start-nemesis.ts';
import { checkStrategyOptions, withEnsembleSizes } from './strategy-options.ts';
import { TargetSession } from './target-session.ts';
import { targetServers } from './target-servers.ts';

/**
 * What one run is, resolved before anything starts: its options (widened where a fault needs it), its lock and
 * faults, and the three parts runTest starts the same way whichever they are — whose servers, how the clients are
 * driven, which nemesis strikes.
 */
export interface RunPlan {
  config: Readonly<Config>;
  strategy: ResolvedStrategy;
  faults: FaultName[];
  /** What the faults declare they need (fault-needs.ts), asked once: the clock shim, a failover pair, own routes. */
  faultNeeds: RunNeeds;
  servers: RunServers;
  clients: RunClients;
  nemesis: NemesisOf;
}

/**
 * Resolved once, before anything starts: a bad plugin or an option the lock can't honour is exit 254 here. With a
 * scenario's `driver` its script drives the clients and strikes; without, they run free under the fault schedule.
 */
export async function planRun(
  config: Readonly<Config>,
  log: (line: string) => void,
  shutdown: Shutdown,
  driver?: RunDriver,
): Promise<RunPlan> {
  const strategy = withEnsembleSizes(config, await loadStrategy(config.lock));
  checkStrategyOptions(config, strategy);
  refuseRedisServer(config);
  const faults = config.nemesis ?? [...strategy.defaultFaults];
  const faultNeeds = runNeeds(faults);
  config = withRoomForFaults(config, faults, faultNeeds, log);
  // A target (--target): refused here (254, nothing started) or connected to — its servers answer, the credentials
  // are fenced to its prefix, nothing is under it — and from here on its servers are the lock's; only Postgres is ours.
  const servers = config.target
    ? targetServers(await TargetSession.open(config, strategy, faults, log))
    : ourServers(strategy, config, faultNeeds);
  refuseServerNet(config, faults, faultNeeds);
  refuseDynamoBackend(config, strategy);
  const needs: Requirement[] = withRedisServer(
    ['pg', ...servers.needs, ...(strategy.pgbouncer ? (['pgbouncer'] as const) : [])],
    config,
  );
  // Clock faults need every server and client spawned with the shim preloaded; without them nothing is preloaded.
  if (faultNeeds.clockShim) needs.push('cc');
  // A built-in foreign row's library runs in the clients, on this host whatever the backend: provisioned apart;
  // so is nftables for server partitions (refuseServerNet has checked the rest they need: root, cgroup2).
  const library = lockLibraryOf(config.lock)?.library;
  const hostOnly: Need[] = [...(library ? [library] : []), ...(faultNeeds.serverNet ? ['nft' as const] : [])];
  await provision([...hostRequirements(config.backend, needs), ...hostOnly], log, shutdown);
  await buildBuiltinLock(config.lock, strategy, log);
  await installNpmLockFor(config.lock, log);
  const clients = driver ? drivenClients(driver) : freeClients;
  const nemesis = driver ? scriptedNemesis(driver) : createNemesis;
  return { config, strategy, faults, faultNeeds, servers, clients, nemesis };
}

/**
 * The run's options as its faults need them: --think widened for a fault that must land inside a critical section
 * (unless the user gave it), and a warning when --time-limit is too short for a pause fault to show anything.
 */
function withRoomForFaults(
  config: Readonly<Config>,
  faults: readonly FaultName[],
  faultNeeds: RunNeeds,
  log: (line: string) => void,
): Readonly<Config> {
  const section = faultNeeds.minSectionMs(config);
  if (!config.thinkGiven && config.thinkMs < section) {
    log(
      `fencepost: note: critical sections last ${section} ms here (--think=${section}, 0.4 × the TTL), so that ${faults.filter((f) => EXECUTORS[f].needs.minSectionMs).join(', ')} can land inside one: a restart takes longer than the default think time. Give --think to choose another.`,
    );
    config = Object.freeze({ ...config, thinkMs: section });
  }
  const shortest = shortestUsefulRunS(faults, { intervalMs: config.nemesisIntervalMs, pauseMs: config.pauseMs });
  if (config.timeLimitS < shortest) {
    log(
      `fencepost: warning: --time-limit=${config.timeLimitS} is too short for a pause fault to show anything: the first fault comes after ${firstDelayFor(config.nemesisIntervalMs)} ms and a paused client only writes again after ${config.pauseMs} ms. Use --time-limit=${shortest} or more.`,
    );
  }
  return config;
}

/**
 * The DynamoDB (dynalite) is a node process of fencepost's own, run from this checkout: the Docker backend's node
 * image has Debian's servers and no Node, so a row that needs it is refused there, and with --target, which names
 * no DynamoDB (254, nothing started).
 */
function refuseDynamoBackend(config: Readonly<Config>, strategy: ResolvedStrategy): void {
  if (strategy.dynamodb && config.target)
    throw new HarnessError(
      'bad-arguments',
      `--lock=${config.lock} keeps its lock in a DynamoDB of the run's own (dynalite): a target has no DynamoDB for it`,
    );
  if (strategy.dynamodb && config.backend !== 'local')
    throw new HarnessError(
      'bad-arguments',
      `--lock=${config.lock} keeps its lock in DynamoDB (dynalite, a node process of fencepost's), which runs on the local backend only (--backend=local)`,
    );
}

/** Server partitions put every server in a cgroup and add an nftables table: refused (254) before anything exists. */
function refuseServerNet(config: Readonly<Config>, faults: readonly FaultName[], faultNeeds: RunNeeds): void {
  if (!faultNeeds.serverNet) return;
  const serverFaults = faults.filter((f) => EXECUTORS[f].needs.serverNet).join(', ');
  if (config.backend !== 'local')
    throw new HarnessError(
      'bad-arguments',
      `${serverFaults} cut links between servers on the local backend only (--backend=local)`,
    );
  // nft itself is provisioned next, like the servers (apt when root).
  const missing = serverNetMissing({ nft: false });
  if (missing) throw new HarnessError('missing-dependency', `${serverFaults}: ${missing}`);
}
