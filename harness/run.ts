import { setTimeout as sleep } from 'node:timers/promises';
import type { FinalRead } from '../history/bank.ts';
import type { FaultName } from '../history/fault-names.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { ClockBoard } from '../nemesis/clock/clock-board.ts';
import { ServerNet, serverNetMissing } from '../nemesis/server-partition/server-net.ts';
import { routeClientsAlone } from '../nemesis/client-routes.ts';
import { createNemesis } from '../nemesis/create-nemesis.ts';
import type { Nemesis, NemesisEnv } from '../nemesis/nemesis.ts';
import { EXECUTORS, runNeeds, type RunNeeds } from '../nemesis/fault-registry.ts';
import { HarnessError } from '../common/errors.ts';
import { CLI } from '../common/cli-name.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { PRIMARY_PROXY } from '../nemesis/failover-pair.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { OP_BATCH_MS } from '../workloads/op-outbox.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { Resource, setupResource, type WriteMode } from '../workloads/resource.ts';
import type { AnyCluster, ClusterSpec } from '../cluster/cluster.ts';
import { createCluster, hostRequirements } from '../cluster/create-cluster.ts';
import { ClientPool } from './client-pool.ts';
import { MAX_CLIENT_DEATHS } from './client-deaths.ts';
import { retireCluster } from './retire-cluster.ts';
import type { RunDriver } from './run-driver.ts';
import { clientsRunning } from './clients-running.ts';
import type { ExitCode } from '../common/exit-codes.ts';
import { verdictExitCode } from '../checkers/verdict.ts';
import { Journal } from '../history/journal.ts';
import { runOptions, type Config } from './run-argv.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { RUN_FORMAT } from '../store/run-format.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { claimRun } from '../common/run-owner.ts';
import { provision, REQUIREMENTS, type Requirement } from '../cluster/provision.ts';
import { foreignLockRecord, type ForeignLockRecord } from '../workloads/foreign/lock-identity.ts';
import { buildBuiltinLock, lockLibraryOf } from '../workloads/foreign/builtin-build.ts';
import { installNpmLockFor } from '../locks/npm-lock-cache.ts';
import { lockSessionName } from '../workloads/lock-session-name.ts';
import { createRunDir, runPath, sealRunHistory, writeTest } from '../store/run-dir.ts';
import { analyze } from './analyze.ts';
import { runSummary } from './run-summary.ts';
import { printRunOutput } from './run-output.ts';
import type { Shutdown, TeardownStep } from '../common/shutdown.ts';
import { debianPackageVersions, libraryVersions, serverVersions } from '../cluster/versions.ts';
import { LiveStats } from './live-stats.ts';
import { StatusLine } from './status-line.ts';
import { checkStrategyOptions, withEnsembleSizes } from './strategy-options.ts';
import { runTiming } from '../common/run-timing.ts';
import { deriveSeed } from '../common/random.ts';
import { TargetSession } from './target-session.ts';

export interface RunOutcome {
  exitCode: ExitCode;
  runDir: string;
  results: RunResults;
  /** --stop-on-lost-update ended the run this many seconds in, before its time limit. */
  stoppedEarlyAtS?: number;
}

function writeModeFor(strategy: ResolvedStrategy, fencing: boolean): WriteMode {
  if (strategy.token === 'version') return 'version';
  return fencing ? 'fenced' : 'plain';
}

/**
 * The nodes the strategy declared (Postgres, the resource, always), plus what the run's faults need. Exported for
 * `bench throughput`, whose bare clients run on the cluster a run boots.
 */
export function clusterSpecFor(
  strategy: ResolvedStrategy,
  config: Readonly<Config>,
  faultNeeds: RunNeeds,
  clocks: ClockBoard | null,
  serverNet: ServerNet | null,
): ClusterSpec {
  return {
    ...strategy.servers,
    pg: true,
    // A fault's primary + replica (failover); clients then reach their first Redis through the primary's proxy.
    failoverPair: strategy.servers.redis > 0 && faultNeeds.failoverPair,
    redisPersistence: config.redisPersistence,
    ...(clocks ? { envFor: (node: string) => clocks.env(node) } : {}),
    ...(serverNet ? { cgroupFor: (node: string) => serverNet.cgroupFor(node) } : {}),
  };
}

/**
 * Progress, nemesis events and warnings go to stderr; the closing summary to stdout (see `runTest`). In a terminal
 * the progress line stays at the bottom and each sentence takes a row of its own above it (status-line.ts).
 */
const consoleStatus = new StatusLine(process.stderr);
const consoleLog = (line: string) => consoleStatus.say(line);

/**
 * One test, end to end: provision → cluster → resource → clients (+ nemesis) for --time-limit → heal → stop
 * clients → final read → teardown → check → report. Every teardown step is registered with `shutdown` before
 * the thing it undoes starts, so Ctrl-C at any point leaves nothing running and the journal on disk.
 */
export async function runTest(
  config: Readonly<Config>,
  shutdown: Shutdown,
  log: (line: string) => void = consoleLog,
  driver?: RunDriver,
): Promise<RunOutcome> {
  // The plan may widen --think for a fault that needs it: from here on the run's config is the plan's.
  const plan = await planRun(config, log, shutdown);
  const { strategy, faults, faultNeeds, target } = plan;
  config = plan.config;

  const runDir = createRunDir(config.resultsDir, config.lock);
  const pids = new PidRegistry(runPath(runDir, 'pids'));
  claimRun(pids.dir);
  // Before the clients' stop is registered, so the removal of the run's keys on the target runs after they stopped.
  target?.attach(runDir, shutdown);
  const clocks = faultNeeds.clockShim ? await ClockBoard.create(runPath(runDir, 'clock')) : null;
  const disposeClocks = shutdown.add('remove clock files', () => clocks?.dispose());
  // Registered before the cluster's own step, so it runs after the servers stopped (steps run newest first).
  const { serverNet, disposeServerNet } = serverNetFor(faultNeeds, runDir, pids, shutdown, log);
  const { journal, closeJournal, stats, pool, stopLaunched } = launchClients(
    config,
    runDir,
    pids,
    clocks,
    shutdown,
    log,
  );
  const { cluster, test, stopCluster, markIncomplete } = await startCluster(
    { config, strategy, faults, faultNeeds, target },
    { runDir, pids, clocks, serverNet },
    shutdown,
    log,
  );

  const { proxies, closeProxies } = await startProxies(cluster, faultNeeds, shutdown, target?.plan.spec.allowHosts);
  await setupResource(cluster.pg!.connectionConfig(), config.accounts);

  const built = clientSpecs(config, strategy, cluster, proxies, faultNeeds, target?.clientTarget());
  const specs = driver ? driver.specs(built.specs) : built.specs;
  const { stopGraceMs } = built;
  // A fault that holds one client's traffic (delay-write): each client gets proxies of its own, chained before the shared ones.
  if (faultNeeds.ownClientRoutes) await routeClientsAlone(specs, proxies);
  const stopClients = shutdown.add('stop clients', () => pool.killAndWait());
  const { nemesis, healNemesis } = await startNemesis(
    { config, faults, servers: strategy.servers, cluster, clients: pool, proxies, journal, clocks, serverNet, log },
    { runDir, test, driver },
    shutdown,
  );

  await pool.start(specs);
  injectStrayThrow('mid-run', journal);
  target?.abort.start(journal);
  Object.assign(test, await clientsPhase({ config, journal, pool, nemesis, stats, log }, driver, target));
  writeTest(runDir, test);
  await healNemesis.run();
  await pool.stop(stopGraceMs);
  stopClients.cancel();
  stopLaunched.cancel();
  if (target) {
    test.target = { ...test.target!, ...(await target.finish()) };
    writeTest(runDir, test);
  }

  await finalReads(journal, cluster, config.accounts);
  await closeJournal.run();
  sealRunHistory(runDir);
  await closeProxies.run();
  await stopCluster.run();
  await disposeServerNet.run();
  await disposeClocks.run();
  markIncomplete.cancel();
  const outcome = await conclude(config, runDir, faults, log);
  return test.stoppedEarly && 'atS' in test.stoppedEarly
    ? { ...outcome, stoppedEarlyAtS: test.stoppedEarly.atS }
    : outcome;
}

/**
 * The nemesis of the run (a scenario's driver's, or the free run's), its skipped faults on the test record, its heal
 * registered before its setup. On a signal (shutdown.reason set) the heal owes the run nothing: no waiting out a
 * --restart-delay.
 */
async function startNemesis(
  env: NemesisEnv,
  run: { runDir: string; test: StoredTestJson; driver: RunDriver | undefined },
  shutdown: Shutdown,
): Promise<{ nemesis: Nemesis; healNemesis: TeardownStep }> {
  const nemesis = run.driver ? run.driver.nemesis(env) : createNemesis(env);
  if (Object.keys(nemesis.skipped).length) {
    run.test.skippedFaults = { ...nemesis.skipped };
    writeTest(run.runDir, run.test);
  }
  const healNemesis = shutdown.add('heal nemesis', () => nemesis.heal({ interrupted: shutdown.reason !== null }));
  await nemesis.setup();
  return { nemesis, healNemesis };
}

/**
 * The history, its live stats, and the clients' processes, started while the cluster boots (their specs, with its
 * ports, follow: pool.start). Steps run newest first: the `stop clients` step here covers a failure during the boot;
 * once the cluster is up runTest registers the same step again, so the clients die before their servers stop. Each
 * waits for the exits it causes (their pid files go with them).
 */
function launchClients(
  config: Readonly<Config>,
  runDir: string,
  pids: PidRegistry,
  clocks: ClockBoard | null,
  shutdown: Shutdown,
  log: (line: string) => void,
) {
  const journal = new Journal(runPath(runDir, 'history'));
  const closeJournal = shutdown.add('close journal', () => journal.close());
  const stats = new LiveStats(config.timeLimitS, log, log === consoleLog && consoleStatus.tty ? consoleStatus : null);
  journal.onOp((op) => stats.observe(op));
  const pool = clientPool(runDir, pids, journal, clocks, log);
  const stopLaunched = shutdown.add('stop clients', () => pool.killAndWait());
  pool.launch(config.concurrency);
  return { journal, closeJournal, stats, pool, stopLaunched };
}

/** The server network of a run with server partitions (its cgroups and nftables table), and its removal. */
function serverNetFor(
  faultNeeds: RunNeeds,
  runDir: string,
  pids: PidRegistry,
  shutdown: Shutdown,
  log: (line: string) => void,
): { serverNet: ServerNet | null; disposeServerNet: TeardownStep } {
  const serverNet = faultNeeds.serverNet ? ServerNet.create(runDir, pids.dir) : null;
  const disposeServerNet = shutdown.add('remove the server network', () => {
    const left = serverNet?.dispose();
    if (left) log(`fencepost: ${left}; \`${CLI} cleanup\` removes it once this harness is gone`);
  });
  return { serverNet, disposeServerNet };
}

/** The run's client processes, their ops journalled (stamped by the client when it says when), clocks shimmed. */
function clientPool(
  runDir: string,
  pids: PidRegistry,
  journal: Journal,
  clocks: ClockBoard | null,
  log: (line: string) => void,
): ClientPool {
  return new ClientPool(
    runDir,
    pids,
    (op, at) => (at === undefined ? journal.append(op) : journal.appendStamped(op, at)),
    clocks ? (slot) => clocks.env(`client-${slot}`) : undefined,
    log,
    (record) => journal.batch(record),
  );
}

/** Resolved once, before anything starts: a bad plugin or an option the lock can't honour is exit 254 here. */
async function planRun(
  config: Readonly<Config>,
  log: (line: string) => void,
  shutdown: Shutdown,
): Promise<{
  config: Readonly<Config>;
  strategy: ResolvedStrategy;
  faults: FaultName[];
  faultNeeds: RunNeeds;
  target: TargetSession | null;
}> {
  const strategy = withEnsembleSizes(config, await loadStrategy(config.lock));
  checkStrategyOptions(config, strategy);
  const faults = config.nemesis ?? [...strategy.defaultFaults];
  // What the faults declare they need (fault-needs.ts), asked once: the clock shim, a failover pair, own routes.
  const faultNeeds = runNeeds(faults);
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
  // A target (--target): refused here (254, nothing started) or connected to — its servers answer, the credentials
  // are fenced to its prefix, nothing is under it — and from here on its servers are the lock's; only Postgres is ours.
  const target = config.target ? await TargetSession.open(config, strategy, faults, log) : null;
  refuseServerNet(config, faults, faultNeeds);
  const needs: Requirement[] = ['pg', ...(target ? [] : strategy.needs)];
  // Clock faults need every server and client spawned with the shim preloaded; without them nothing is preloaded.
  if (faultNeeds.clockShim) needs.push('cc');
  // A built-in foreign row's library runs in the clients, on this host whatever the backend: provisioned apart;
  // so is nftables for server partitions (refuseServerNet has checked the rest they need: root, cgroup2).
  const library = lockLibraryOf(config.lock)?.library;
  const hostOnly: Requirement[] = [...(library ? [library] : []), ...(faultNeeds.serverNet ? ['nft' as const] : [])];
  await provision([...hostRequirements(config.backend, needs), ...hostOnly], log, shutdown);
  await buildBuiltinLock(config.lock, strategy, log);
  await installNpmLockFor(config.lock, log);
  return { config, strategy, faults, faultNeeds, target };
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

/**
 * The cluster, up: made and started, with its teardown (and the mark that the run did not end normally) registered
 * with `shutdown` first; the test record written as soon as the nodes are known, and again with their versions.
 */
async function startCluster(
  plan: {
    config: Readonly<Config>;
    strategy: ResolvedStrategy;
    faults: FaultName[];
    faultNeeds: RunNeeds;
    target: TargetSession | null;
  },
  where: { runDir: string; pids: PidRegistry; clocks: ClockBoard | null; serverNet: ServerNet | null },
  shutdown: Shutdown,
  log: (line: string) => void,
): Promise<{ cluster: AnyCluster; test: StoredTestJson; stopCluster: TeardownStep; markIncomplete: TeardownStep }> {
  const { config, strategy, faults, faultNeeds, target } = plan;
  const { runDir, pids, clocks, serverNet } = where;
  // Against a target fencepost starts only the resource's Postgres; the lock's servers are the target's.
  const spec = target ? { pg: true } : clusterSpecFor(strategy, config, faultNeeds, clocks, serverNet);
  const local = await createCluster(config.backend, spec, runDir, pids, log);
  const cluster: AnyCluster = target ? target.cluster(local) : local;
  const test = testRecord(config, strategy, faults, faultNeeds, cluster);
  if (target) test.target = target.record();
  writeTest(runDir, test);
  log(
    `fencepost: --lock=${config.lock} --seed=${config.seed}, faults: ${faults.join(', ') || 'none'}; run dir ${runDir}`,
  );

  const stopCluster = shutdown.add('stop cluster', async () => {
    injectStrayThrow('teardown');
    await retireCluster(cluster, runDir);
  });
  const markIncomplete = shutdown.add('mark the run incomplete', () =>
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
  return { cluster, test, stopCluster, markIncomplete };
}

/** What the run is, as its test record says it (completed later: server versions, skipped faults). */
function testRecord(
  config: Readonly<Config>,
  strategy: ResolvedStrategy,
  faults: FaultName[],
  faultNeeds: RunNeeds,
  cluster: AnyCluster,
): StoredTestJson {
  return {
    format: RUN_FORMAT,
    lock: config.lock,
    strategy: {
      name: strategy.name,
      token: strategy.token,
      exclusive: strategy.exclusive,
      servers: strategy.servers,
      // Always written, null included: a record without it is from before the promise checker read it.
      lease: strategy.lease,
    },
    argv: config.argv,
    seed: config.seed,
    startedAt: new Date().toISOString(),
    faults,
    config: runOptions(config),
    versions: libraryVersions(),
    nodes: cluster.nodes.map((n) => ({ name: n.name, port: n.port })),
    clientNetwork: faultNeeds.clientProxies ? 'proxied' : 'direct',
    ...foreignLockOf(config.lock, strategy),
  };
}

/** For a lock in another language: which build of it ran (lock-identity.ts), its library's Debian packages included. */
function foreignLockOf(lock: string, strategy: ResolvedStrategy): { foreignLock?: ForeignLockRecord } {
  const library = lockLibraryOf(lock)?.library;
  const record = foreignLockRecord(strategy, library ? debianPackageVersions(REQUIREMENTS[library].packages) : {});
  return record ? { foreignLock: record } : {};
}

/**
 * Clients reach the servers through proxies of ours when a fault acts there (partition, latency, failover, a held
 * write); otherwise straight to the servers' ports, so the latencies the run records carry no proxy hop. Their
 * closing is registered first and the map filled one by one, so a failure half-way still closes the rest.
 */
async function startProxies(
  cluster: AnyCluster,
  faultNeeds: RunNeeds,
  shutdown: Shutdown,
  allowHosts: readonly string[] = [],
): Promise<{ proxies: Map<string, TcpProxy>; closeProxies: TeardownStep }> {
  const proxies = new Map<string, TcpProxy>();
  const closeProxies = shutdown.add('close proxies', async () => {
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
  return { proxies, closeProxies };
}

/**
 * One spec per client slot: where its servers are (a proxy of ours or the server itself), its seeds and budgets,
 * and whether it sends each op at once (a fault of the run aims by them) or in batches.
 * Exported for `bench throughput`, whose bare clients get exactly what a run's clients get.
 */
export function clientSpecs(
  config: Readonly<Config>,
  strategy: ResolvedStrategy,
  cluster: AnyCluster,
  proxies: ReadonlyMap<string, TcpProxy>,
  faultNeeds: Pick<RunNeeds, 'liveOps'>,
  target?: ClientTarget,
): { specs: ClientSpec[]; stopGraceMs: number } {
  const portOf = (name: string) => proxies.get(name)?.port ?? cluster.nodes.find((n) => n.name === name)!.port;
  const via = (name: string) => ({ host: '127.0.0.1', port: portOf(name) });
  // A server's own endpoint (a target's host, user and TLS), or the proxy of ours in front of it. With a failover
  // pair, the first Redis is "the primary": a proxy the failover fault re-points at the promoted node.
  const redisEndpoints = cluster.redis.map((r, i) => {
    const proxy = proxies.get(i === 0 && cluster.failover ? PRIMARY_PROXY : r.name);
    return {
      ...r.endpoint(),
      ...(proxy ? { host: '127.0.0.1', port: proxy.port } : {}),
      ...(target ? { keyPrefix: target.keyPrefix } : {}),
    };
  });
  const etcdUrl = (e: AnyCluster['etcd'][number]) => {
    const proxy = proxies.get(e.name);
    return proxy ? e.endpoint.replace(/\/\/[^/]+/, `//127.0.0.1:${proxy.port}`) : e.endpoint;
  };
  const mode = writeModeFor(strategy, config.fencing);
  const timing = runTiming(config);
  const pgConfig = { ...cluster.pg!.connectionConfig(), ...via('pg') };
  const specs: ClientSpec[] = Array.from({ length: config.concurrency }, (_, slot) => ({
    slot,
    concurrency: config.concurrency,
    strategyUrl: strategy.moduleUrl,
    ...(strategy.foreign ? { foreign: strategy.foreign } : {}),
    ctx: {
      redis: redisEndpoints,
      etcd: cluster.etcd.map(etcdUrl),
      ...(cluster.etcd[0]?.userAuth ? { etcdAuth: cluster.etcd[0].userAuth } : {}),
      ...(target ? { keyPrefix: target.keyPrefix } : {}),
      ...(target?.etcdTls ? { etcdTls: target.etcdTls } : {}),
      zookeeper: cluster.zk.map((z) => `127.0.0.1:${portOf(z.name)}`).join(','),
      ...(cluster.zk[0] ? { zookeeperAuth: cluster.zk[0].userAuth } : {}),
      postgresUrl: postgresUrl(pgConfig, lockSessionName(slot)),
      ttlMs: config.ttlMs,
      acquireTimeoutMs: timing.acquireTimeoutMs,
      retry: config.retry,
      client: slot,
      seed: deriveSeed(config.seed, { purpose: 'lock-client', slot }),
    },
    pg: pgConfig,
    mode,
    thinkMs: config.thinkMs,
    accounts: config.accounts,
    watchdog: config.watchdog,
    seed: deriveSeed(config.seed, { purpose: 'client-loop', slot }),
    stepTimeoutMs: timing.stepTimeoutMs,
    opBatchMs: faultNeeds.liveOps ? null : OP_BATCH_MS,
  }));
  return { specs, stopGraceMs: timing.stopGraceMs };
}

/** What the clients of a run against a target get besides the servers' endpoints. */
export interface ClientTarget {
  keyPrefix: string;
  etcdTls?: { ca?: string; servername?: string };
}

/**
 * The run's Postgres as a connection string (LockContext.postgresUrl), for a lock that lives in Postgres: its sessions
 * named for the client slot (`application_name`), so the kill-session fault can find the holder's.
 */
export function postgresUrl(
  c: { host?: string; port?: number; user?: string; password?: unknown; database?: string },
  applicationName: string,
): string {
  const auth = `${encodeURIComponent(c.user ?? '')}:${encodeURIComponent(String(c.password ?? ''))}`;
  const db = encodeURIComponent(c.database ?? '');
  return `postgres://${auth}@${c.host}:${c.port}/${db}?application_name=${encodeURIComponent(applicationName)}`;
}

/** What the clients' part of a run works with. */
interface ClientsPhaseEnv {
  config: Readonly<Config>;
  journal: Journal;
  pool: ClientPool;
  nemesis: Nemesis;
  stats: LiveStats;
  log: (line: string) => void;
}

/**
 * The clients' part of a run: a scenario's driver takes them step by step, else they run free for the time limit
 * (ended early by a loss with --stop-on-lost-update, or by a target's abort). What the test record gains from it.
 */
async function clientsPhase(
  env: ClientsPhaseEnv,
  driver: RunDriver | undefined,
  target: TargetSession | null,
): Promise<Partial<StoredTestJson>> {
  const { config, journal, pool, nemesis, log } = env;
  if (driver) return driver.drive({ config, journal, pool, nemesis, log });
  const stopped = await runForTheLimit(env, target?.abort.aborted);
  if (!stopped) return {};
  return 'aborted' in stopped ? { aborted: stopped.aborted } : { stoppedEarly: stopped };
}

/**
 * The run itself: the nemesis runs while the clients work, for --time-limit, with progress on the console — or
 * until every client has died too often (nothing left to measure), or with --stop-on-lost-update until the first
 * lost update shows (returned: the test record keeps it). Returns once the nemesis has stopped.
 */
async function runForTheLimit(
  { config, journal, pool, nemesis, stats, log }: ClientsPhaseEnv,
  aborted: Promise<string> = new Promise<never>(() => {}),
): Promise<NonNullable<StoredTestJson['stoppedEarly']> | { aborted: string } | null> {
  // The time limit is the clients' time: it starts once every client began its loop (clients-running.ts).
  const { waitedMs, silent } = await clientsRunning(journal, config.concurrency, pool.allGaveUp);
  if (silent.length)
    log(
      `fencepost: clients ${silent.join(', ')} had not begun after ${(waitedMs / 1000).toFixed(1)} s; the time limit starts anyway (see logs/client-<n>.log)`,
    );
  else if (waitedMs >= 1000)
    log(`fencepost: every client began its loop after ${(waitedMs / 1000).toFixed(1)} s; the time limit starts now`);
  const abort = new AbortController();
  const nemesisDone = nemesis
    .run(abort.signal)
    .catch((err) => log(`fencepost: nemesis failed: ${(err as Error).message}`));
  stats.begin();
  const progress = setInterval(() => stats.print(), stats.tty ? 1000 : 10_000);
  // A run whose clients all kept dying has nothing left to measure: end it rather than wait out the limit.
  const limit = new AbortController();
  const timeUp = sleep(config.timeLimitS * 1000, false, { signal: limit.signal }).catch(() => false);
  const lost = config.stopOnLostUpdate ? stats.lostUpdate : new Promise<never>(() => {});
  const ended = await Promise.race([
    timeUp,
    pool.allGaveUp.then(() => true as const),
    lost,
    aborted.then((reason) => ({ aborted: reason })),
  ]);
  limit.abort();
  if (ended === true) {
    log(`fencepost: every client died ${MAX_CLIENT_DEATHS} times; ending the run early (see logs/client-<n>.log)`);
  }
  const stoppedEarly =
    typeof ended === 'object' && 'atS' in ended ? { ...ended, atS: Math.round(ended.atS * 1000) / 1000 } : null;
  if (stoppedEarly) {
    log(
      `fencepost: --stop-on-lost-update: write #${stoppedEarly.writeId} on account ${stoppedEarly.account} did not see #${stoppedEarly.missed}, at ${stoppedEarly.atS.toFixed(1)} of ${config.timeLimitS} s; ending the run, the checkers decide`,
    );
  }
  clearInterval(progress);
  stats.print(true);
  abort.abort();
  await nemesisDone;
  return typeof ended === 'object' && 'aborted' in ended ? ended : stoppedEarly;
}

/** The harness's own read of the final state and the ledger: the lost-update checker's ground truth. */
async function finalReads(journal: Journal, cluster: AnyCluster, accounts: number): Promise<void> {
  const resource = await Resource.connect(cluster.pg!.connectionConfig());
  try {
    for (let account = 0; account < accounts; account++) {
      journal.append({ process: 'harness', type: 'invoke', f: 'final-read', value: { account } });
      const final: FinalRead = await resource.finalRead(account);
      journal.append({ process: 'harness', type: 'ok', f: 'final-read', value: final });
    }
  } finally {
    await resource.close();
  }
}

/** Check (the same analysis `check <run-dir>` makes of a stored run, from the files just sealed), report, say it. */
async function conclude(
  config: Readonly<Config>,
  runDir: string,
  faults: readonly string[],
  log: (line: string) => void,
): Promise<RunOutcome> {
  const analysis = analyze(runDir, { warn: (line) => log(`fencepost: warning: ${line}`) });
  if (!analysis.ok) throw new Error(`the run's own history cannot be checked: ${analysis.problem}`);
  const { results } = analysis;
  await writeReports(runDir, config.resultsDir, log);
  // The verdict is the command's output (stdout, or JSON there with --json: run-output.ts). A caller's own log
  // (tests, the matrix) gets the summary like every other line.
  if (log === consoleLog) printRunOutput(config, runDir, results, faults);
  else log(runSummary(config, runDir, results, faults));
  return { exitCode: verdictExitCode(results.valid), runDir, results };
}

/** Reports are a view of the files: a failure to render must not change the verdict. */
async function writeReports(runDir: string, resultsDir: string, log: (l: string) => void): Promise<void> {
  try {
    const report = await import('../report/report.ts');
    report.writeReport(runDir);
    const index = await import('../report/index-page.ts');
    index.writeIndex(resultsDir);
  } catch (err) {
    log(`fencepost: could not write the HTML report: ${(err as Error).message}`);
  }
}

/**
 * A test hook (harness/crash.servers.test.ts): `FENCEPOST_TEST_THROW=<phase>` throws from an event-loop callback
 * at that phase — outside every promise chain, as a throw in an IPC or stream handler would — so the test can show
 * that the process-level handler still heals, stops everything and exits 255. Unset, it does nothing.
 */
function injectStrayThrow(phase: 'setup' | 'mid-run' | 'teardown', journal?: Journal): void {
  if (process.env.FENCEPOST_TEST_THROW !== phase) return;
  const strayThrow = () =>
    setTimeout(() => {
      throw new Error(`FENCEPOST_TEST_THROW: injected throw (${phase})`);
    }, 0);
  // Mid-run: once the journal holds a completed op (the history has something to keep) — on a busy machine the
  // clients may take seconds to begin; elsewhere at once, while the phase's work is in flight.
  if (!journal) return void strayThrow();
  const unsubscribe = journal.onOp((op) => {
    if (op.type !== 'ok') return;
    unsubscribe();
    strayThrow();
  });
}
