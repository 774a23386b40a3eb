import { fork, type ChildProcess } from 'node:child_process';
import { benchArgs, namesOf, wholeNumbers } from './bench-args.ts';
import type { OptionSpec } from '../harness/option-table.ts';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalCluster } from '../cluster/local/cluster.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { provision } from '../cluster/provision.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { Shutdown } from '../common/shutdown.ts';
import type { Config } from '../harness/run-argv.ts';
import { typedRun } from '../harness/typed-run.ts';
import { clientSpecs } from '../harness/client-specs.ts';
import { clusterSpecFor } from '../harness/our-servers.ts';
import { runTest } from '../harness/run.ts';
import { clientEnvironment } from '../harness/client-environment.ts';
import { withEnsembleSizes } from '../harness/strategy-options.ts';
import { runNeeds } from '../nemesis/fault-registry.ts';
import { readHistory } from '../history/reader.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { setupResource } from '../workloads/resource.ts';
import { topSelfFrames, type CpuProfile, type SelfFrame } from './cpu-profile.ts';
import { machine, type BenchOutcome } from './outcome.ts';
import { watchRun, cpuBetween, snapshot, trackedFromPidDirs, type CpuShare } from './process-cpu.ts';
import type { BareFromClient, BareToClient } from './throughput-bare-client.ts';
import { clientPhaseRate, okLatencyP50Ms, type ClientPhaseRate, type CountedOp } from './throughput-window.ts';
import { throughputGoals, throughputTable, shareOf, type ThroughputRow } from './throughput-goal.ts';
import { runPath } from '../store/run-dir.ts';
import { verdictWord } from '../checkers/verdict.ts';

/**
 * `npm run bench -- throughput [--locks=redis,etcd,postgres] [--concurrency=1,2,4,8,16,32] [--accounts=1,16]
 *  [--time-limit=10] [--profiles=<dir>]`
 *
 * How many ops a second the harness records, against what the same clients do without it. For each lock ×
 * accounts × concurrency, row by row:
 *
 * 1. Bare: on a cluster booted for the row (the one a run of the lock boots: same binaries, configs and spec,
 *    local backend), `--concurrency` forked processes run the run's own client loop (workloads/client-loop.ts)
 *    with the specs a run's clients get (harness/client-specs.ts's clientSpecs: same strategy, Resource, seeds, sleeps,
 *    step timeouts) — a run's client without the harness: its ops are kept in memory instead of sent over IPC
 *    and journalled (bench/throughput-bare-client.ts). The like-for-like floor.
 * 2. Recorded: `runTest` with `--think=0 --nemesis=none` and the same seed, in this process (so this process *is*
 *    the harness, and the inspector's CPU profile of it is a `--cpu-prof` of the harness), RAMP_S longer than the
 *    limit.
 *
 * Both are counted by one function (bench/throughput-window.ts): ok client ops completed within `--time-limit` s
 * from the first op of the client that started last, so neither side counts its clients' start-up.
 * Over each client phase with every client running, the CPU of the harness, of the clients and of the servers
 * (/proc, read by a process of its own: bench/process-cpu.ts, bench/cpu-watch.ts), and the harness's busiest
 * frames. Goals (bench/throughput-goal.ts): the recorded ok ops/s ≥ 80 % of bare at every concurrency ≤ 16, and
 * the harness's CPU below the servers'. The two phases run one after the other, not together, so each has the
 * machine to itself.
 */
const LOCKS = ['redis', 'etcd', 'postgres'];
const SEED = 24;
const TTL_MS = 2000;
const TSX = import.meta.resolve('tsx');
const BARE_CLIENT = new URL('./throughput-bare-client.ts', import.meta.url);
const TOP_FRAMES = 10;
/** The harness's CPU profile samples every 10 ms (`--cpu-prof-interval=10000`): ~700 samples in a 7 s run. */
const PROFILE_SAMPLING_US = 10_000;
/** A recorded run lasts this much longer than --time-limit, so the window with every client running is the limit. */
const RAMP_S = 3;
/** The step whose latency a row reports on both sides: postgres takes no lock, its write is what it costs. */
const ACQUIRE_OF: Record<string, string> = { redis: 'acquire', etcd: 'acquire', postgres: 'write' };
/** The bare clients, all loaded before `go`, only connect first: they run this much past the limit. */
const BARE_TAIL_S = 1;

interface Args {
  locks: string[];
  concurrency: number[];
  accounts: number[];
  timeLimitS: number;
  profiles: string | null;
}

const OPTIONS = [
  {
    name: 'locks',
    kind: 'string',
    value: 'lock,…',
    default: LOCKS.join(','),
    help: 'the locks measured',
    parse: namesOf('locks', LOCKS),
  },
  {
    name: 'concurrency',
    kind: 'string',
    value: 'n,…',
    default: '1,2,4,8,16,32',
    help: 'client counts',
    parse: wholeNumbers('concurrency', 1, 64),
  },
  {
    name: 'accounts',
    kind: 'string',
    value: 'n,…',
    default: '1,16',
    help: 'account counts',
    parse: wholeNumbers('accounts', 1, 1000),
  },
  { name: 'time-limit', kind: 'int', value: 's', min: 2, max: 600, default: 10, help: "each cell's run" },
  { name: 'profiles', kind: 'string', value: 'dir', help: 'write CPU profiles of each run here' },
] as const satisfies readonly OptionSpec[];

function parseArgs(args: string[]): Args {
  const o = benchArgs('throughput', args, OPTIONS);
  return {
    locks: o.locks,
    concurrency: o.concurrency,
    accounts: o.accounts,
    timeLimitS: o['time-limit'],
    profiles: o.profiles ?? null,
  };
}

export async function run(argv: string[]): Promise<BenchOutcome> {
  const a = parseArgs(argv);
  await provision(['redis', 'etcd', 'pg']);
  const cells = a.locks.flatMap((lock) =>
    a.accounts.flatMap((accounts) => a.concurrency.map((concurrency) => ({ lock, accounts, concurrency }))),
  );
  console.log(
    `throughput: ${cells.length} rows (${a.locks.join(', ')} × ${a.accounts.join('/')} accounts × ${a.concurrency.join('/')} clients), ${a.timeLimitS} s each, bare then recorded`,
  );

  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-throughput-'));
  if (a.profiles) fs.mkdirSync(a.profiles, { recursive: true });
  const rows: ThroughputRow[] = [];
  try {
    for (const cell of cells) {
      // Row by row, bare then recorded, each on a cluster of its own: a machine whose load drifts (2 cores shared)
      // moves both sides of a ratio together, not all the bare rows against all the recorded ones.
      const bare = await bareRow(cell, a.timeLimitS);
      const { rate, ...rec } = await recordedRun(cell, a.timeLimitS, results, a.profiles);
      const row: ThroughputRow = {
        ...cell,
        ...rec,
        bareOkPerS: bare.rate.okPerS,
        bareCpu: bare.cpu,
        bareInfos: bare.infos,
        bareAcquireP50Ms: bare.acquireP50Ms,
      };
      rows.push(row);
      console.log(
        `recorded ${cell.lock} ${cell.accounts} acc × ${cell.concurrency}: ${row.recordedOkPerS.toFixed(0)} ok/s${windowNote(rate, cell, a.timeLimitS)} (${row.verdict}, ${row.recordedInfos} info) vs bare ${row.bareOkPerS.toFixed(0)} → ${(shareOf(row) * 100).toFixed(0)} %; ${ACQUIRE_OF[cell.lock]} p50 ${row.recordedAcquireP50Ms?.toFixed(3) ?? '-'} vs bare ${row.bareAcquireP50Ms?.toFixed(3) ?? '-'} ms; ` +
          `CPU harness ${cpuText(row.cpu)}; top: ${row.topFrames
            .slice(0, 3)
            .map((f) => `${f.frame} ${(f.share * 100).toFixed(0)} %`)
            .join(', ')}`,
      );
    }
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
  console.log(`\n${throughputTable(rows)}`);
  for (const r of rows.filter((r) => r.concurrency === Math.max(...a.concurrency))) {
    console.log(`\nharness top self-time frames, ${r.lock} ${r.accounts} acc × ${r.concurrency} clients:`);
    for (const f of r.topFrames)
      console.log(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.selfMs.toFixed(0).padStart(6)} ms  ${f.frame}`);
  }
  const cpus = machine().cpus;
  return {
    benchmark: 'throughput',
    goals: throughputGoals(rows, cpus),
    data: { timeLimitS: a.timeLimitS, seed: SEED, ttlMs: TTL_MS, rows },
  };
}

const cpuText = (c: CpuShare | null) =>
  c
    ? `${c.harness.toFixed(2)}, clients ${c.clients.toFixed(2)}, servers ${c.servers.toFixed(2)} cores over ${c.wallS.toFixed(1)} s`
    : 'not sampled';

interface Cell {
  lock: string;
  accounts: number;
  concurrency: number;
}

/** One recorded run, with the harness's CPU profile and the CPU of every process over its client phase. */
async function recordedRun(
  cell: Cell,
  timeLimitS: number,
  results: string,
  profiles: string | null,
): Promise<
  Pick<ThroughputRow, 'recordedOkPerS' | 'recordedAcquireP50Ms' | 'recordedInfos' | 'cpu' | 'topFrames' | 'verdict'> & {
    rate: ClientPhaseRate;
  }
> {
  const watch = await watchRun(path.join(results, cell.lock), cell.concurrency);
  const session = new Session();
  session.connect();
  let cpu: Awaited<ReturnType<typeof watch.stop>> = null;
  let profile: CpuProfile;
  let hrAtStartNs: bigint;
  let out;
  try {
    await session.post('Profiler.enable');
    // Its sampling is the harness's CPU too: ~0.04 cores at V8's default 1 ms on this 2-core machine, ~0.015 at 10 ms.
    await session.post('Profiler.setSamplingInterval', { interval: PROFILE_SAMPLING_US });
    hrAtStartNs = process.hrtime.bigint();
    await session.post('Profiler.start');
    // RAMP_S longer than the limit: the window of every client running (its clients fork, load and connect
    // first, a second and more on 2 cores) is then the whole limit.
    out = await runTest(configFor(cell, timeLimitS + RAMP_S, results), new Shutdown(), () => {});
  } finally {
    cpu = await watch.stop();
    profile = ((await session.post('Profiler.stop')) as { profile: CpuProfile }).profile;
    session.disconnect();
  }
  // The profile's clock is V8's monotonic µs; aligned to hrtime at its start (to within the start call).
  const offsetUs = profile.startTime - Number(hrAtStartNs / 1000n);
  const frames: SelfFrame[] = cpu
    ? topSelfFrames(
        profile,
        { fromUs: Number(cpu.fromNs / 1000n) + offsetUs, toUs: Number(cpu.toNs / 1000n) + offsetUs },
        TOP_FRAMES,
      ).frames
    : [];
  if (profiles)
    fs.writeFileSync(
      path.join(profiles, `harness-${cell.lock}-a${cell.accounts}-c${cell.concurrency}.cpuprofile`),
      JSON.stringify(profile),
    );
  const r = out.results;
  const history = readHistory(runPath(out.runDir, 'history')).ops;
  const rate = clientPhaseRate(history, cell.concurrency, timeLimitS);
  const acquireP50Ms = okLatencyP50Ms(history, ACQUIRE_OF[cell.lock], rate.fromNs, rate.toNs);
  // The watch saw the client phase only if it saw most of it: a window far shorter than the run is no measure.
  if (cpu && cpu.wallS < 0.5 * (r.durationMs / 1000)) {
    console.log(
      `  (CPU window ${cpu.wallS.toFixed(1)} s of a ${(r.durationMs / 1000).toFixed(1)} s client phase: not used)`,
    );
    cpu = null;
  }
  fs.rmSync(out.runDir, { recursive: true, force: true });
  return {
    rate,
    recordedOkPerS: rate.okPerS,
    recordedAcquireP50Ms: acquireP50Ms,
    recordedInfos: history.filter((o) => o.type === 'info' && typeof o.process === 'number').length,
    cpu: cpu
      ? { wallS: cpu.wallS, harness: cpu.harness, clients: cpu.clients, servers: cpu.servers, seen: cpu.seen }
      : null,
    topFrames: frames,
    verdict: verdictWord(r.valid),
  };
}

/** A row's run options: the recorded run's argv, whose config the bare clients' specs are made from too. */
function configFor(cell: Cell, timeLimitS: number, results: string): Readonly<Config> {
  return typedRun({
    lock: cell.lock,
    concurrency: cell.concurrency,
    accounts: cell.accounts,
    thinkMs: 0,
    nemesis: [],
    timeLimitS,
    ttlMs: TTL_MS,
    seed: SEED,
    resultsDir: results,
  });
}

interface BareResult {
  rate: ClientPhaseRate;
  acquireP50Ms: number | null;
  cpu: CpuShare;
  infos: number;
  lastInfo?: string;
}

/**
 * One row's bare loop, on a cluster booted for it: the cluster a run of the lock boots (harness/our-servers.ts's
 * clusterSpecFor, no fault), local backend, as the recorded run that follows boots its own.
 */
async function bareRow(cell: Cell, timeLimitS: number): Promise<BareResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-bare-'));
  const pidsDir = path.join(dir, 'pids');
  const config = configFor(cell, timeLimitS, dir);
  const strategy = withEnsembleSizes(config, await loadStrategy(cell.lock));
  const cluster = await createLocalCluster(
    clusterSpecFor(strategy, config, runNeeds([]), null, null),
    dir,
    new PidRegistry(pidsDir),
  );
  try {
    await cluster.start();
    const b = await bareRun(cluster, cell, timeLimitS, pidsDir, dir);
    console.log(
      `bare ${cell.lock} ${cell.accounts} acc × ${cell.concurrency}: ${b.rate.okPerS.toFixed(0)} ok/s${windowNote(b.rate, cell, timeLimitS)}, CPU clients ${b.cpu.clients.toFixed(2)}, servers ${b.cpu.servers.toFixed(2)} cores (${b.cpu.seen.servers} server processes)${b.infos ? `, ${b.infos} info (${b.lastInfo})` : ''}`,
    );
    return b;
  } finally {
    await cluster.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a window that is not "every client, the whole time limit" was instead. */
function windowNote(r: ClientPhaseRate, cell: Cell, timeLimitS: number): string {
  const notes = [
    ...(r.slotsStarted < cell.concurrency
      ? [`only ${r.slotsStarted} of ${cell.concurrency} clients issued an op`]
      : []),
    ...(r.coveredS < timeLimitS - 0.01 ? [`over ${r.coveredS.toFixed(2)} s, not ${timeLimitS}`] : []),
  ];
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/**
 * `cell.concurrency` forked bare clients (bench/throughput-bare-client.ts) with the specs a run's clients get,
 * straight to the servers' ports as a run without a network fault connects them. They load the strategy, then all
 * start on `go` and stop starting iterations BARE_TAIL_S after the time limit, so the window of every client
 * running (bench/throughput-window.ts) is the whole limit. CPU over go → stop; the processes are read again at the
 * end, so a Postgres backend forked meanwhile (a reconnect after an info) counts too.
 */
async function bareRun(
  cluster: Cluster,
  cell: Cell,
  timeLimitS: number,
  pidsDir: string,
  results: string,
): Promise<BareResult> {
  const config = configFor(cell, timeLimitS, results);
  const strategy = withEnsembleSizes(config, await loadStrategy(cell.lock));
  const { specs } = clientSpecs(config, strategy, cluster, new Map(), runNeeds([]));
  await setupResource(cluster.pg!.connectionConfig(), cell.accounts);
  const children: ChildProcess[] = [];
  const done: Promise<Extract<BareFromClient, { type: 'done' }>>[] = [];
  try {
    const ready: Promise<void>[] = [];
    for (const spec of specs) {
      const child = fork(BARE_CLIENT, [], {
        execArgv: ['--import', TSX],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: clientEnvironment(process.env, {}),
      });
      children.push(child);
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', (code) =>
          reject(new Error(`bare client ${spec.slot} exited with code ${code}; its stderr is above`)),
        ),
      );
      const message = (type: string) =>
        Promise.race([
          new Promise<BareFromClient>((resolve) =>
            child.on('message', (m: BareFromClient) => m.type === type && resolve(m)),
          ),
          exited,
        ]);
      ready.push(message('ready').then(() => {}));
      done.push(message('done') as Promise<Extract<BareFromClient, { type: 'done' }>>);
      done.at(-1)!.catch(() => {}); // awaited below; not unhandled meanwhile
      child.send({ type: 'start', spec } satisfies BareToClient);
    }
    await Promise.all(ready);
    const clients = children.map((c) => ({ pid: c.pid!, role: 'client' as const }));
    const servers = () => trackedFromPidDirs([pidsDir]).filter((t) => t.role === 'server');
    const from = snapshot([...servers(), ...clients]);
    const untilNs = process.hrtime.bigint() + BigInt(Math.round((timeLimitS + BARE_TAIL_S) * 1e9));
    for (const c of children) c.send({ type: 'go', untilNs: untilNs.toString() } satisfies BareToClient);
    // Over the limit, while every client still runs (they stop BARE_TAIL_S later, then close their connections).
    await sleep(timeLimitS * 1000);
    const cpu = cpuBetween(from, snapshot([...servers(), ...clients]));
    const answers = await Promise.all(done);
    const ops: CountedOp[] = answers.flatMap((a) =>
      a.process.map((p, k) => ({
        process: p,
        type: a.opType[k],
        f: a.f[k],
        time: Number(BigInt(a.atNs[k]) - from.atNs),
      })),
    );
    const rate = clientPhaseRate(ops, cell.concurrency, timeLimitS);
    const infos = answers.reduce((s, a) => s + a.infos, 0);
    const lastInfo = answers.find((a) => a.lastInfo)?.lastInfo;
    return {
      rate,
      acquireP50Ms: okLatencyP50Ms(ops, ACQUIRE_OF[cell.lock], rate.fromNs, rate.toNs),
      cpu,
      infos,
      ...(lastInfo ? { lastInfo } : {}),
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}
