import { removeSecrets } from '../cluster/credentials.ts';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FinalRead } from '../history/bank.ts';
import { checkOptionsFor, checkRun } from '../checkers/check-run.ts';
import { livenessLines } from '../checkers/liveness.ts';
import type { RunResults } from '../checkers/run-results.ts';
import { describeTokenViolation, type TokenOrderResult } from '../checkers/token-order.ts';
import { ClockBoard } from '../nemesis/clock/clock-board.ts';
import { routeClientsAlone } from '../nemesis/client-routes.ts';
import { createNemesis } from '../nemesis/create-nemesis.ts';
import { runNeeds, type RunNeeds } from '../nemesis/fault-registry.ts';
import { firstDelayFor, shortestUsefulRunS } from '../nemesis/schedule.ts';
import { PRIMARY_PROXY } from '../nemesis/failover-pair.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { Resource, setupResource, type WriteMode } from '../workloads/resource.ts';
import type { ClusterSpec } from '../cluster/cluster.ts';
import { createCluster, hostRequirements } from '../cluster/create-cluster.ts';
import { ClientPool, MAX_CLIENT_DEATHS } from './client-pool.ts';
import { EXIT, type ExitCode } from '../common/exit-codes.ts';
import { Journal } from '../history/journal.ts';
import { readHistory } from '../history/reader.ts';
import { sealInTimeOrder } from '../history/time-order.ts';
import type { Op } from '../history/op.ts';
import type { Config } from './options.ts';
import type { StoredTestJson } from '../store/test-json.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { claimRun } from '../common/run-owner.ts';
import { provision, type Requirement } from '../cluster/provision.ts';
import { createRunDir, writeJson } from '../store/results-store.ts';
import type { Shutdown } from '../common/shutdown.ts';
import { libraryVersions, serverVersions } from '../cluster/versions.ts';
import { LiveStats } from './live-stats.ts';
import { replayCommand } from '../store/replay-command.ts';
import { checkStrategyOptions } from './strategy-options.ts';

export interface RunOutcome {
  exitCode: ExitCode;
  runDir: string;
  results: RunResults;
}

/** test.json as this run writes it (its shape, and the reader that tolerates older runs: store/test-json.ts). */
export type TestJson = StoredTestJson;

function writeModeFor(strategy: ResolvedStrategy, fencing: boolean): WriteMode {
  if (strategy.token === 'version') return 'version';
  return fencing ? 'fenced' : 'plain';
}

/** The nodes the strategy declared (Postgres, the resource, always), plus what the run's faults need. */
function clusterSpecFor(
  strategy: ResolvedStrategy,
  config: Readonly<Config>,
  faultNeeds: RunNeeds,
  clocks: ClockBoard | null,
): ClusterSpec {
  return {
    ...strategy.servers,
    pg: true,
    // A fault's primary + replica (failover); clients then reach their first Redis through the primary's proxy.
    failoverPair: strategy.servers.redis > 0 && faultNeeds.failoverPair,
    redisPersistence: config.redisPersistence,
    ...(clocks ? { envFor: (node: string) => clocks.env(node) } : {}),
  };
}

export function verdictExitCode(valid: RunResults['valid']): ExitCode {
  return valid === true ? EXIT.valid : valid === false ? EXIT.invalid : EXIT.unknown;
}

/** Progress, nemesis events and warnings go to stderr; the closing summary to stdout (see `runTest`). */
const consoleLog = (line: string) => console.error(line);

/**
 * One test, end to end: provision → cluster → resource → clients (+ nemesis) for --time-limit → heal → stop
 * clients → final read → teardown → check → report. Every teardown step is registered with `shutdown` before
 * the thing it undoes starts, so Ctrl-C at any point leaves nothing running and the journal on disk.
 */
export async function runTest(
  config: Readonly<Config>,
  shutdown: Shutdown,
  log: (line: string) => void = consoleLog,
): Promise<RunOutcome> {
  // Resolved once, before anything starts: a bad plugin or an option the lock can't honour is exit 254 here.
  const strategy = await loadStrategy(config.lock);
  checkStrategyOptions(config, strategy);
  const faults = config.nemesis ?? [...strategy.defaultFaults];
  // What the faults declare they need (fault-needs.ts), asked once: the clock shim, a failover pair, own routes.
  const faultNeeds = runNeeds(faults);
  const shortest = shortestUsefulRunS(faults, { intervalMs: config.nemesisIntervalMs, pauseMs: config.pauseMs });
  if (config.timeLimitS < shortest) {
    log(
      `fencepost: warning: --time-limit=${config.timeLimitS} is too short for a pause fault to show anything: the first fault comes after ${firstDelayFor(config.nemesisIntervalMs)} ms and a paused client only writes again after ${config.pauseMs} ms. Use --time-limit=${shortest} or more.`,
    );
  }
  const needs: Requirement[] = ['pg', ...strategy.needs];
  // Clock faults need every server and client spawned with the shim preloaded; without them nothing is preloaded.
  if (faultNeeds.clockShim) needs.push('cc');
  await provision(hostRequirements(config.backend, needs), log);

  const runDir = createRunDir(config.resultsDir, config.lock);
  const pids = new PidRegistry(path.join(runDir, 'pids'));
  claimRun(pids.dir);
  const clocks = faultNeeds.clockShim ? await ClockBoard.create(path.join(runDir, 'clock')) : null;
  const disposeClocks = shutdown.add('remove clock files', () => clocks?.dispose());
  const spec = clusterSpecFor(strategy, config, faultNeeds, clocks);
  const cluster = await createCluster(config.backend, spec, runDir, pids, log);
  const test: TestJson = {
    lock: config.lock,
    strategy: { name: strategy.name, token: strategy.token, exclusive: strategy.exclusive, servers: strategy.servers },
    argv: config.argv,
    seed: config.seed,
    startedAt: new Date().toISOString(),
    faults,
    config,
    versions: libraryVersions(),
    nodes: cluster.nodes.map((n) => ({ name: n.name, port: n.port })),
    clientNetwork: faultNeeds.clientProxies ? 'proxied' : 'direct',
  };
  writeJson(path.join(runDir, 'test.json'), test);
  log(
    `fencepost: --lock=${config.lock} --seed=${config.seed}, faults: ${faults.join(', ') || 'none'}; run dir ${runDir}`,
  );

  const stopCluster = shutdown.add('stop cluster', async () => {
    injectStrayThrow('teardown');
    await cluster.teardown();
    fs.rmSync(path.join(runDir, 'nodes'), { recursive: true, force: true });
    removeSecrets(runDir);
  });
  const markIncomplete = shutdown.add('mark the run incomplete', () =>
    writeJson(path.join(runDir, 'test.json'), {
      ...test,
      ...(shutdown.reason === 'signal' ? { interrupted: true } : { failed: true }),
    }),
  );
  const t0 = performance.now();
  await cluster.start();
  log(`fencepost: ${cluster.nodes.length} nodes ready in ${Math.round(performance.now() - t0)} ms`);
  injectStrayThrow('setup');
  Object.assign(test.versions, await serverVersions(cluster.nodes));
  writeJson(path.join(runDir, 'test.json'), test);

  // Clients reach the servers through proxies of ours when a fault acts there (partition, latency, failover, a held
  // write); otherwise straight to the servers' ports, so the latencies the run records carry no proxy hop.
  const proxies = new Map<string, TcpProxy>();
  const closeProxies = shutdown.add('close proxies', async () => {
    await Promise.all([...proxies.values()].map((p) => p.close()));
  });
  if (faultNeeds.clientProxies) {
    for (const n of cluster.nodes) proxies.set(n.name, await TcpProxy.start({ targetPort: n.port }));
  }
  const portOf = (name: string) => proxies.get(name)?.port ?? cluster.nodes.find((n) => n.name === name)!.port;
  const via = (name: string) => ({ host: '127.0.0.1', port: portOf(name) });
  // With a failover pair, the first Redis is "the primary": a proxy the failover fault re-points at the promoted node.
  const redisEndpoints = cluster.redis.map((r, i) => ({
    ...via(i === 0 && cluster.failover ? PRIMARY_PROXY : r.name),
    password: cluster.credentials.redis,
  }));

  await setupResource(cluster.pg!.connectionConfig(), config.accounts);

  const journal = new Journal(path.join(runDir, 'history.jsonl'));
  const closeJournal = shutdown.add('close journal', () => journal.close());
  const stats = new LiveStats(config.timeLimitS, log, log === consoleLog && process.stderr.isTTY);
  journal.onOp((op) => stats.observe(op));

  const mode = writeModeFor(strategy, config.fencing);
  const acquireTimeoutMs = 3 * config.ttlMs + 1000;
  const specs: ClientSpec[] = Array.from({ length: config.concurrency }, (_, slot) => ({
    slot,
    concurrency: config.concurrency,
    strategyUrl: strategy.moduleUrl,
    ctx: {
      redis: redisEndpoints,
      etcd: cluster.etcd.map((e) => `http://127.0.0.1:${portOf(e.name)}`),
      ...(cluster.etcd[0] ? { etcdAuth: cluster.etcd[0].userAuth } : {}),
      zookeeper: cluster.zk.map((z) => `127.0.0.1:${portOf(z.name)}`).join(','),
      ...(cluster.zk[0] ? { zookeeperAuth: cluster.zk[0].userAuth } : {}),
      ttlMs: config.ttlMs,
      acquireTimeoutMs,
      client: slot,
      seed: (config.seed + slot * 7919) >>> 0,
    },
    pg: { ...cluster.pg!.connectionConfig(), ...via('pg') },
    mode,
    thinkMs: config.thinkMs,
    accounts: config.accounts,
    watchdog: config.watchdog,
    seed: (config.seed * 31 + slot) >>> 0,
    stepTimeoutMs: acquireTimeoutMs + 2000,
  }));
  // A fault that holds one client's traffic (delay-write): each client gets proxies of its own, chained before the shared ones.
  if (faultNeeds.ownClientRoutes) await routeClientsAlone(specs, proxies);
  const pool = new ClientPool(
    runDir,
    pids,
    (op, at) => (at === undefined ? journal.append(op) : journal.appendStamped(op, at)),
    clocks ? (slot) => clocks.env(`client-${slot}`) : undefined,
    log,
  );
  const stopClients = shutdown.add('stop clients', () => pool.kill());

  const nemesis = createNemesis({
    config,
    faults,
    servers: strategy.servers,
    cluster,
    clients: pool,
    proxies,
    journal,
    clocks,
    log,
  });
  if (Object.keys(nemesis.skipped).length) {
    test.skippedFaults = { ...nemesis.skipped };
    writeJson(path.join(runDir, 'test.json'), test);
  }
  // On a signal (shutdown.reason set) the heal owes the run nothing: no waiting out a --restart-delay.
  const healNemesis = shutdown.add('heal nemesis', () => nemesis.heal({ interrupted: shutdown.reason !== null }));
  await nemesis.setup();

  await pool.start(specs);
  injectStrayThrow('mid-run');
  const abort = new AbortController();
  const nemesisDone = nemesis
    .run(abort.signal)
    .catch((err) => log(`fencepost: nemesis failed: ${(err as Error).message}`));
  const progress = setInterval(() => stats.print(), stats.tty ? 1000 : 10_000);
  // A run whose clients all kept dying has nothing left to measure: end it rather than wait out the limit.
  const limit = new AbortController();
  const timeUp = sleep(config.timeLimitS * 1000, false, { signal: limit.signal }).catch(() => false);
  const endedEarly = await Promise.race([timeUp, pool.allGaveUp.then(() => true)]);
  limit.abort();
  if (endedEarly) {
    log(`fencepost: every client died ${MAX_CLIENT_DEATHS} times; ending the run early (see logs/client-<n>.log)`);
  }
  clearInterval(progress);
  stats.print(true);

  abort.abort();
  await nemesisDone;
  await healNemesis.run();
  await pool.stop(acquireTimeoutMs + 5000);
  stopClients.cancel();

  // The harness's own read of the final state and the ledger: the lost-update checker's ground truth.
  const resource = await Resource.connect(cluster.pg!.connectionConfig());
  try {
    for (let account = 0; account < config.accounts; account++) {
      journal.append({ process: 'harness', type: 'invoke', f: 'final-read', value: { account } });
      const final: FinalRead = await resource.finalRead(account);
      journal.append({ process: 'harness', type: 'ok', f: 'final-read', value: final });
    }
  } finally {
    await resource.close();
  }
  await closeJournal.run();
  sealInTimeOrder(path.join(runDir, 'history.jsonl'));
  await closeProxies.run();
  await stopCluster.run();
  await disposeClocks.run();
  markIncomplete.cancel();

  const { ops } = readHistory(path.join(runDir, 'history.jsonl'));
  const results = checkRun(ops as Op[], checkOptionsFor(test));
  writeJson(path.join(runDir, 'results.json'), results);
  await writeReports(runDir, config.resultsDir, log);
  // The verdict is the command's output: on stdout, so `npm run jepsen … > verdict.txt` in a CI job keeps it
  // without the progress lines. A caller's own log (tests, the matrix) gets it like every other line.
  (log === consoleLog ? (text: string) => console.log(text) : log)(summary(config, runDir, results, faults));
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

function summary(config: Readonly<Config>, runDir: string, r: RunResults, faults: readonly string[]): string {
  const verdict = r.valid === true ? 'VALID' : r.valid === false ? 'INVALID' : 'UNKNOWN';
  const q = r.latency.acquire;
  const head = `--lock=${config.lock}${config.fencing ? ' --fencing' : ''}  seed ${config.seed}`;
  // An unknown verdict leads with why: "UNKNOWN  no progress: 0 writes committed; 14 acquires timed out".
  const [why, ...moreWhy] = r.unknownReasons;
  const lines = [
    '',
    ...(why !== undefined && r.valid === 'unknown'
      ? [`  ${verdict}  ${why}`, ...moreWhy.map((w) => `  also: ${w}`), `  ${head}`]
      : [`  ${verdict}  ${head}`]),
    `  ops: ${r.opCounts.total} (${r.opCounts.ok} ok, ${r.opCounts.fail} fail, ${r.opCounts.info} info), ${r.throughput.toFixed(1)} ok/s over ${(r.durationMs / 1000).toFixed(1)} s`,
    `  lost updates: ${r.lostUpdates}   stale writes rejected: ${r.staleWritesRejected}   overlaps: ${r.overlaps} (${r.confirmedOverlaps} confirmed)   faults: ${r.faults.length}`,
    `  acquire latency ms: p50 ${q.p50.toFixed(2)}  p99 ${q.p99.toFixed(2)}  max ${q.max.toFixed(2)}`,
    ...livenessLines(r.liveness ?? undefined),
  ];
  for (const [name, c] of Object.entries(r.checkers))
    lines.push(`  checker ${name}: ${String(c.valid)}${c.error ? ` (${c.error})` : ''}`);
  // Every fault of the run, the ones that never fired too: each must have acted for the verdict to be VALID.
  const hits = r.faultHits ?? {};
  for (const f of new Set([...faults, ...Object.keys(hits)]))
    lines.push(`  fault ${f}: fired ${hits[f]?.fired ?? 0}, hit ${hits[f]?.hit ?? 0}`);
  for (const l of r.lostUpdateDetails.slice(0, 3)) {
    lines.push(
      `  lost: write #${l.lost.writeId} by p${l.lost.process} (${l.lost.from}→${l.lost.to}) erased by write #${l.overwrittenBy.writeId} by p${l.overwrittenBy.process} based on #${l.overwrittenBy.basedOn}`,
    );
  }
  const tokenOrder = r.checkers['token-order'] as Partial<TokenOrderResult> | undefined;
  for (const v of tokenOrder?.violations?.slice(0, 3) ?? []) lines.push(`  token: ${describeTokenViolation(v)}`);
  lines.push(
    `  run dir: ${runDir}`,
    `  report:  ${path.join(runDir, 'report.html')}`,
    `  replay:  ${replayCommand(config)}`,
    '',
  );
  return lines.join('\n');
}

/**
 * A test hook (harness/crash.servers.test.ts): `FENCEPOST_TEST_THROW=<phase>` throws from an event-loop callback
 * at that phase — outside every promise chain, as a throw in an IPC or stream handler would — so the test can show
 * that the process-level handler still heals, stops everything and exits 255. Unset, it does nothing.
 */
function injectStrayThrow(phase: 'setup' | 'mid-run' | 'teardown'): void {
  if (process.env.FENCEPOST_TEST_THROW !== phase) return;
  // Mid-run: a second in, so the history has ops to keep; elsewhere at once, while the phase's work is in flight.
  setTimeout(
    () => {
      throw new Error(`FENCEPOST_TEST_THROW: injected throw (${phase})`);
    },
    phase === 'mid-run' ? 1000 : 0,
  );
}
