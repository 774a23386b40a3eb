import { fork, type ChildProcess } from 'node:child_process';
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
import { resolveConfig } from '../harness/options.ts';
import { runTest } from '../harness/run.ts';
import type { ClientSpec } from '../workloads/client-protocol.ts';
import { readHistory } from '../history/reader.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { setupResource } from '../workloads/resource.ts';
import { topSelfFrames, type CpuProfile, type SelfFrame } from './cpu-profile.ts';
import { machine, type BenchOutcome } from './outcome.ts';
import { watchRun, cpuBetween, snapshot, trackedFromPidDirs, type CpuShare } from './process-cpu.ts';
import type { BareFromClient, BareToClient } from './throughput-bare-client.ts';
import { throughputGoals, throughputTable, shareOf, type ThroughputRow } from './throughput-goal.ts';
import { runPath } from '../store/run-dir.ts';
import { verdictWord } from '../checkers/verdict.ts';

/**
 * `npm run bench -- throughput [--locks=redis,etcd,postgres] [--concurrency=1,2,4,8,16,32] [--accounts=1,16]
 *  [--time-limit=10] [--profiles=<dir>]`
 *
 * How many ops a second the harness records, against what the same clients do without it. For each lock ×
 * accounts × concurrency:
 *
 * 1. Bare: on a cluster of the lock's servers and Postgres booted here (the same binaries and configs a run
 *    boots, local backend; one per lock, for all its rows), `--concurrency`
 *    forked processes run the strategy's own acquire → read → write → release on the same Resource with the same
 *    sleeps as a run's client (bench/throughput-bare-client.ts) for `--time-limit` s, counting the calls that
 *    succeeded: the like-for-like floor, what the clients can do when nothing records them.
 * 2. Recorded: `runTest` with `--think=0 --nemesis=none` and the same seed, in this process (so this process *is*
 *    the harness, and the inspector's CPU profile of it is a `--cpu-prof` of the harness): the history's ok client
 *    ops within `--time-limit` s of its first client op, counted as the bare loop's are.
 *
 * Over each client phase, the CPU of the harness, of the clients and of the servers (/proc, read by a process of
 * its own: bench/process-cpu.ts, bench/cpu-watch.ts), and the harness's busiest frames. Goals (bench/throughput-goal.ts): the
 * recorded ok ops/s ≥ 80 % of bare at every concurrency ≤ 16, and the harness's CPU below the servers'.
 * The two phases run one after the other, not together, so each has the machine to itself (bare first; each
 * recorded run boots its own cluster, as a run does).
 */
const LOCKS = ['redis', 'etcd', 'postgres'];
const SEED = 24;
const TTL_MS = 2000;
const TSX = import.meta.resolve('tsx');
const BARE_CLIENT = new URL('./throughput-bare-client.ts', import.meta.url);
const TOP_FRAMES = 10;

interface Args {
  locks: string[];
  concurrency: number[];
  accounts: number[];
  timeLimitS: number;
  profiles: string | null;
}

function parseArgs(args: string[]): Args {
  const known = ['locks', 'concurrency', 'accounts', 'time-limit', 'profiles'];
  const opt = (name: string): string | undefined =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const ints = (name: string, dflt: string, min: number, max: number): number[] | string => {
    const raw = opt(name) ?? dflt;
    const xs = raw.split(',').map(Number);
    return xs.every((x) => Number.isInteger(x) && x >= min && x <= max)
      ? xs
      : `--${name}=${raw}: each must be an integer from ${min} to ${max}`;
  };
  const problems: string[] = [];
  const unknown = args.filter((a) => !known.some((k) => a.startsWith(`--${k}=`)));
  if (unknown.length) problems.push(`unknown argument(s) ${unknown.join(' ')}`);
  const locks = (opt('locks') ?? LOCKS.join(',')).split(',');
  const badLock = locks.find((l) => !LOCKS.includes(l));
  if (badLock) problems.push(`--locks: "${badLock}" is not one of ${LOCKS.join(',')}`);
  const concurrency = ints('concurrency', '1,2,4,8,16,32', 1, 64);
  const accounts = ints('accounts', '1,16', 1, 1000);
  const timeLimit = ints('time-limit', '10', 2, 600);
  for (const x of [concurrency, accounts, timeLimit]) if (typeof x === 'string') problems.push(x);
  if (problems.length) {
    console.error(
      `throughput: ${problems.join('; ')}\nusage: npm run bench -- throughput [--locks=${LOCKS.join(',')}] [--concurrency=1,2,4,8,16,32] [--accounts=1,16] [--time-limit=<s ≥ 2>] [--profiles=<dir>]`,
    );
    process.exit(254);
  }
  return {
    locks,
    concurrency: concurrency as number[],
    accounts: accounts as number[],
    timeLimitS: (timeLimit as number[])[0],
    profiles: opt('profiles') ?? null,
  };
}

export async function run(argv: string[]): Promise<BenchOutcome> {
  const a = parseArgs(argv);
  await provision(['redis', 'etcd', 'pg']);
  const strategies = new Map<string, ResolvedStrategy>();
  for (const l of a.locks) strategies.set(l, await loadStrategy(l));
  const cells = a.locks.flatMap((lock) =>
    a.accounts.flatMap((accounts) => a.concurrency.map((concurrency) => ({ lock, accounts, concurrency }))),
  );
  console.log(
    `throughput: ${cells.length} rows (${a.locks.join(', ')} × ${a.accounts.join('/')} accounts × ${a.concurrency.join('/')} clients), ${a.timeLimitS} s each, bare then recorded`,
  );

  const bare = await bareAll(cells, strategies, a.timeLimitS);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-throughput-'));
  if (a.profiles) fs.mkdirSync(a.profiles, { recursive: true });
  const rows: ThroughputRow[] = [];
  try {
    for (const [i, cell] of cells.entries()) {
      const rec = await recordedRun(cell, a.timeLimitS, results, a.profiles);
      const row: ThroughputRow = {
        ...cell,
        ...rec,
        bareOkPerS: bare[i].okPerS,
        bareCpu: bare[i].cpu,
        bareErrors: bare[i].errors,
      };
      rows.push(row);
      console.log(
        `recorded ${cell.lock} ${cell.accounts} acc × ${cell.concurrency}: ${row.recordedOkPerS.toFixed(0)} ok/s (${row.verdict}) vs bare ${row.bareOkPerS.toFixed(0)} → ${(shareOf(row) * 100).toFixed(0)} %; ` +
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
): Promise<Pick<ThroughputRow, 'recordedOkPerS' | 'cpu' | 'topFrames' | 'verdict'>> {
  const watch = await watchRun(path.join(results, cell.lock));
  const session = new Session();
  session.connect();
  let cpu: Awaited<ReturnType<typeof watch.stop>> = null;
  let profile: CpuProfile;
  let hrAtStartNs: bigint;
  let out;
  try {
    await session.post('Profiler.enable');
    hrAtStartNs = process.hrtime.bigint();
    await session.post('Profiler.start');
    out = await runTest(
      resolveConfig([
        `--lock=${cell.lock}`,
        `--concurrency=${cell.concurrency}`,
        `--accounts=${cell.accounts}`,
        '--think=0',
        '--nemesis=none',
        `--time-limit=${timeLimitS}`,
        `--ttl=${TTL_MS}`,
        `--seed=${SEED}`,
        `--results=${results}`,
      ]),
      new Shutdown(),
      () => {},
    );
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
  const recordedOkPerS = okPerSecondOfClientPhase(runPath(out.runDir, 'history'), timeLimitS);
  // The watch saw the client phase only if it saw most of it: a window far shorter than the run is no measure.
  if (cpu && cpu.wallS < 0.5 * (r.durationMs / 1000)) {
    console.log(
      `  (CPU window ${cpu.wallS.toFixed(1)} s of a ${(r.durationMs / 1000).toFixed(1)} s client phase: not used)`,
    );
    cpu = null;
  }
  fs.rmSync(out.runDir, { recursive: true, force: true });
  return {
    recordedOkPerS,
    cpu: cpu ? { wallS: cpu.wallS, harness: cpu.harness, clients: cpu.clients, servers: cpu.servers } : null,
    topFrames: frames,
    verdict: verdictWord(r.valid),
  };
}

/**
 * Ok client ops a second over the first `timeLimitS` from the first client op — the bare loop's measure (from
 * `go`, its clients connected, to its deadline). Not the run's results' `throughput`, which spans the whole history:
 * the wait for the clients to stop and the harness's final reads, seconds with etcd, would count as slowness.
 */
function okPerSecondOfClientPhase(historyFile: string, timeLimitS: number): number {
  const client = readHistory(historyFile).ops.filter((o) => typeof o.process === 'number');
  if (client.length === 0) return 0;
  // A loop, not Math.min(...): a spread of 10⁵ ops overflows the stack.
  const end = client.reduce((m, o) => Math.min(m, o.time), Infinity) + timeLimitS * 1e9;
  return client.filter((o) => o.type === 'ok' && o.time <= end).length / timeLimitS;
}

/**
 * Every row's bare loop, in row order, on one cluster per lock booted for its rows: the strategy's own servers and
 * Postgres, as its runs boot (idle etcd members beside a Redis row would cost it CPU the run does not pay).
 */
async function bareAll(
  cells: Cell[],
  strategies: Map<string, ResolvedStrategy>,
  timeLimitS: number,
): Promise<{ okPerS: number; cpu: CpuShare; errors: number }[]> {
  const out: { okPerS: number; cpu: CpuShare; errors: number }[] = new Array(cells.length);
  for (const lock of [...new Set(cells.map((c) => c.lock))]) {
    const strategy = strategies.get(lock)!;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-bare-'));
    const pidsDir = path.join(dir, 'pids');
    const cluster = await createLocalCluster({ ...strategy.servers, pg: true }, dir, new PidRegistry(pidsDir));
    try {
      await cluster.start();
      for (const [i, cell] of cells.entries()) {
        if (cell.lock !== lock) continue;
        const b = await bareRun(cluster, strategy, cell, timeLimitS, pidsDir);
        out[i] = b;
        console.log(
          `bare ${cell.lock} ${cell.accounts} acc × ${cell.concurrency}: ${b.okPerS.toFixed(0)} ok/s, CPU clients ${b.cpu.clients.toFixed(2)}, servers ${b.cpu.servers.toFixed(2)} cores${b.errors ? `, ${b.errors} errors (${b.lastError})` : ''}${b.notAcquired ? `, ${b.notAcquired} not acquired` : ''}`,
        );
      }
    } finally {
      await cluster.teardown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/** The spec a run's client gets (harness/run.ts), for this cluster, straight to the ports. */
function specFor(cluster: Cluster, strategy: ResolvedStrategy, cell: Cell, slot: number): ClientSpec {
  const acquireTimeoutMs = 3 * TTL_MS + 1000;
  return {
    slot,
    concurrency: cell.concurrency,
    strategyUrl: strategy.moduleUrl,
    ctx: {
      redis: cluster.redis
        .slice(0, strategy.servers.redis)
        .map((r) => ({ host: '127.0.0.1', port: r.port, password: cluster.credentials.redis })),
      etcd: cluster.etcd.map((e) => `http://127.0.0.1:${e.port}`),
      ...(cluster.etcd[0] ? { etcdAuth: cluster.etcd[0].userAuth } : {}),
      zookeeper: '',
      ttlMs: TTL_MS,
      acquireTimeoutMs,
      client: slot,
      seed: (SEED + slot * 7919) >>> 0,
    },
    pg: cluster.pg!.connectionConfig(),
    // As harness/run.ts's writeModeFor, unfenced: the row version for postgres, a blind write for the others.
    mode: strategy.token === 'version' ? 'version' : 'plain',
    thinkMs: 0,
    accounts: cell.accounts,
    watchdog: false,
    seed: (SEED * 31 + slot) >>> 0,
    stepTimeoutMs: acquireTimeoutMs + 2000,
  };
}

async function bareRun(
  cluster: Cluster,
  strategy: ResolvedStrategy,
  cell: Cell,
  timeLimitS: number,
  pidsDir: string,
): Promise<{ okPerS: number; cpu: CpuShare; errors: number; notAcquired: number; lastError?: string }> {
  await setupResource(cluster.pg!.connectionConfig(), cell.accounts);
  const children: ChildProcess[] = [];
  const done: Promise<Extract<BareFromClient, { type: 'done' }>>[] = [];
  try {
    const ready: Promise<void>[] = [];
    for (let slot = 0; slot < cell.concurrency; slot++) {
      const child = fork(BARE_CLIENT, [], {
        execArgv: ['--import', TSX],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', (code) =>
          reject(new Error(`bare client ${slot} exited with code ${code}; its stderr is above`)),
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
      child.send({ type: 'start', spec: specFor(cluster, strategy, cell, slot) } satisfies BareToClient);
    }
    await Promise.all(ready);
    // Every client connected; their servers' backends (Postgres: one per connection) exist now, so they are seen.
    const tracked = [
      ...trackedFromPidDirs([pidsDir]).filter((t) => t.role === 'server'),
      ...children.map((c) => ({ pid: c.pid!, role: 'client' as const })),
    ];
    const from = snapshot(tracked);
    const untilNs = process.hrtime.bigint() + BigInt(timeLimitS * 1e9);
    for (const c of children) c.send({ type: 'go', untilNs: untilNs.toString() } satisfies BareToClient);
    await sleep(timeLimitS * 1000);
    const cpu = cpuBetween(from, snapshot(tracked));
    const counts = await Promise.all(done);
    const ok = counts.reduce((s, c) => s + c.ok, 0);
    return {
      okPerS: ok / timeLimitS,
      cpu,
      errors: counts.reduce((s, c) => s + c.errors, 0),
      notAcquired: counts.reduce((s, c) => s + c.notAcquired, 0),
      ...(counts.find((c) => c.lastError) ? { lastError: counts.find((c) => c.lastError)!.lastError } : {}),
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}
