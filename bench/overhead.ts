import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Etcd3 } from 'etcd3';
import zookeeper from 'node-zookeeper-client';
import type { Quantiles } from '../checkers/run-results.ts';
import { quantiles } from '../checkers/op-stats.ts';
import { FULL_CLUSTER, type Cluster, type ClusterSpec } from '../cluster/cluster.ts';
import { createLocalCluster } from '../cluster/local/cluster.ts';
import { resolveConfig } from '../harness/command-line.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { provision } from '../cluster/provision.ts';
import { clientSpecs, runTest } from '../harness/run.ts';
import { runNeeds } from '../nemesis/fault-registry.ts';
import { Shutdown } from '../common/shutdown.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import { RELEASE_IF_OWNER } from '../workloads/strategies/redis-scripts.ts';
import { seededRandom } from '../common/random.ts';
import { Resource, setupResource } from '../workloads/resource.ts';
import type { Lease, LockContext, LockStrategy } from '../workloads/strategy.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ReadOk, WriteValue } from '../history/bank.ts';
import { readRunHistory, readTestRaw, runPath } from '../store/run-dir.ts';
import { isRecord } from '../common/is-record.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  floorFor,
  harnessShareGoal,
  overheadGoal,
  type FloorName,
  type OverheadRow,
  type ZkParts,
  steadyLatency,
} from './overhead-goal.ts';
import type { BenchOutcome, Goal } from './outcome.ts';

/**
 * `npm run bench -- overhead [--samples=2000] [--time-limit=15] [--locks=redis,redlock,…]`
 *
 * What the harness adds to what it measures, uncontended. For each lock in turn, on this machine:
 *
 * 1. Its floors, on a cluster of the lock's servers (the same binaries and configs a run boots, local backend) booted
 *    for it just before its run: `--samples` sequential acquire/release pairs of the bare operation the strategy is
 *    built on, straight to the server's port — ioredis `SET key v NX PX 2000` + compare-and-delete `EVAL` (one
 *    master, and the same on 5 masters in parallel, Redlock's floor); an etcd3 create-if-absent txn +
 *    compare-and-delete txn; a ZooKeeper EPHEMERAL_SEQUENTIAL create + delete; the run's own Postgres write
 *    (conditional UPDATE + ledger INSERT, one statement) as acquire and the read that precedes it as release — then
 *    the same through a TcpProxy of the harness (the difference is the proxy's own latency), then paced as a run's
 *    client is (timedInterleaved), op by op in turn with the strategy's own acquire called from this process
 *    (strategyPair: the lock's own code and client library, no harness). ZooKeeper's acquire is also taken apart per
 *    member (zkMemberParts).
 * 2. Its run: `runTest` with `--concurrency=1 --think=0 --nemesis=none --time-limit=<s>`; the latency quantiles of
 *    the run's history past its first third (steadyLatency: the floors are taken warm, and a run's servers and
 *    client process start cold — measured: zookeeper acquire p50 over a whole 5 s run 4.99 ms, over a 20 s run
 *    3.18 ms, the strategy alone on warm servers 2.7–2.8 ms); the whole run's p50 is kept beside it. The client
 *    stamps `invoke` just before it calls the strategy and `ok` right after the call returns, so what the harness
 *    adds there is the client's own work around the call (its write-ahead of the invoke: workloads/op-outbox.ts).
 *
 * Not the same server instance: runTest boots its own cluster. Goals: each lock's recorded acquire p50 ≤ 1.5 × its
 * paced floor's p50 (postgres has no lock: its write against the same statement), and ≤ 1.5 × the strategy alone
 * (what the harness adds to the lock's own cost). The back-to-back ratio is printed too.
 */
const BENCH_TTL_MS = 2000;
const DEFAULT_LOCKS = ['redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres'];

type Pair = { acquire: () => Promise<unknown>; release: () => Promise<unknown> };
type AcquireRelease = { acquire: Quantiles; release: Quantiles };

const PACED_SAMPLES = 500;

export async function run(args: string[]): Promise<BenchOutcome> {
  const opt = (name: string): string | undefined =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const samples = Number(opt('samples') ?? 2000);
  const timeLimitS = Number(opt('time-limit') ?? 15);
  const locks = (opt('locks') ?? DEFAULT_LOCKS.join(',')).split(',');
  const unknownLock = locks.find((l) => !DEFAULT_LOCKS.includes(l));
  if (
    !Number.isInteger(samples) ||
    samples < 10 ||
    !Number.isFinite(timeLimitS) ||
    timeLimitS < 3 ||
    unknownLock !== undefined
  ) {
    console.error(
      `usage: npm run bench -- overhead [--samples=<n ≥ 10>] [--time-limit=<s ≥ 3>] [--locks=${DEFAULT_LOCKS.join(',')}]${unknownLock ? `\nunknown lock "${unknownLock}"` : ''}`,
    );
    process.exit(254);
  }
  await provision(['redis', 'etcd', 'zk', 'pg']);
  const floors: Record<string, LockFloor> = {};
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-overhead-'));
  const rows: OverheadRow[] = [];
  try {
    for (const lock of locks) {
      // The floors of this lock, on a cluster of its own booted just before its run: on this shared VM the servers'
      // latency drifts minute to minute (etcd and ZooKeeper fsync every write), so measurements minutes apart are
      // not like for like.
      const f = (floors[lock] = await measureLockFloor(lock, samples));
      printFloor(lock, f);
      const argv = [
        `--lock=${lock}`,
        '--concurrency=1',
        '--think=0',
        '--nemesis=none',
        `--time-limit=${timeLimitS}`,
        `--ttl=${BENCH_TTL_MS}`,
        `--results=${results}`,
      ];
      const out = await runTest(resolveConfig(argv), new Shutdown(), () => {});
      const floor = floorFor(lock);
      // postgres takes no lock: its acquire is a no-op, and the write (the conditional UPDATE) is what it costs.
      const timedF = lock === 'postgres' ? 'write' : 'acquire';
      const { history } = readRunHistory(out.runDir);
      const warmupMs = (timeLimitS * 1000) / 3;
      const recorded = {
        acquire: steadyLatency(history, timedF, warmupMs),
        release: steadyLatency(history, 'release', warmupMs),
      };
      const wholeRun = out.results.latency[timedF];
      const row: OverheadRow = {
        lock,
        floor,
        recorded,
        floorDirect: f.direct,
        floorProxied: f.proxied,
        floorPaced: f.paced,
        ...(f.alone ? { strategyAlone: f.alone } : {}),
        clientNetwork: clientNetworkOf(out.runDir),
        ops: out.results.opCounts.total,
        warmupMs,
        recordedWholeRun: wholeRun,
      };
      rows.push(row);
      console.log(
        `harness ${lock.padEnd(11)} ${timedF.padEnd(7)} p50 ${ms(recorded.acquire.p50)} p99 ${ms(recorded.acquire.p99)} (n=${recorded.acquire.count}, after ${(warmupMs / 1000).toFixed(1)} s; whole run p50 ${ms(wholeRun.p50)}), release p50 ${ms(recorded.release.p50)} p99 ${ms(recorded.release.p99)}; ` +
          (f.alone ? `strategy alone acquire p50 ${ms(f.alone.acquire.p50)}; ` : '') +
          `floor ${floor} paced p50 ${ms(row.floorPaced!.acquire.p50)} → ${(recorded.acquire.p50 / row.floorPaced!.acquire.p50).toFixed(2)}× (back to back ${ms(row.floorDirect.acquire.p50)} → ${(recorded.acquire.p50 / row.floorDirect.acquire.p50).toFixed(2)}×); clients ${row.clientNetwork ?? 'proxied'}`,
      );
    }
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
  const goals: Goal[] = rows.flatMap((row) =>
    [overheadGoal(row, floors[row.lock]?.zkParts), harnessShareGoal(row)].filter((g): g is Goal => g !== undefined),
  );
  return { benchmark: 'overhead', goals, data: { samples, timeLimitS, ttlMs: BENCH_TTL_MS, floors, rows } };
}

const ms = (x: number): string => `${x.toFixed(3)} ms`;

/** How the run's clients reached the servers, as its test record says (absent: an older run, always proxied). */
function clientNetworkOf(runDir: string): 'direct' | 'proxied' {
  const test = readTestRaw(runDir);
  return isRecord(test) && test.clientNetwork === 'direct' ? 'direct' : 'proxied';
}

/** The client loop's stagger between iterations (workloads/client-loop.ts): a seeded 0–20 ms idle gap. */
const STAGGER_MS = 20;

/**
 * Back to back: `samples` pairs with no gap, after a short warm-up (connection set-up, JIT and the server's first
 * allocation are not what we measure).
 */
async function timed(pair: Pair, samples: number): Promise<AcquireRelease> {
  const [one] = await timedInterleaved([pair], samples, false);
  return one;
}

/**
 * Until `op` succeeds once, or `ms` pass (then its error): a cluster that has just booted may refuse its first calls
 * — etcd with auth on answers "revision of auth store is old" until its members agree on the auth store (seen here on
 * a floor's first txn, seconds after boot), which crashed a whole benchmark run. Warm-up only: measured ops never retry.
 */
async function settled<T>(op: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

/** Up to 50 unmeasured pairs, the first one retried while the cluster settles. */
async function warmUp(pair: Pair, samples: number): Promise<void> {
  await settled(async () => {
    let held = false;
    try {
      await pair.acquire();
      held = true;
      await pair.release();
    } catch (err) {
      // A release that failed after its acquire succeeded: try again, or the next acquire finds the key still held.
      if (held)
        await Promise.resolve()
          .then(() => pair.release())
          .catch(() => {});
      throw err;
    }
  });
  for (let i = 1; i < Math.min(50, samples); i++) {
    await pair.acquire();
    await pair.release();
  }
}

/** One lock's floors, measured on a cluster booted for it just before its run. */
export interface LockFloor {
  floor: FloorName;
  /** Back to back, straight to the port. */
  direct: AcquireRelease;
  /** Back to back, through one of the harness's proxies. */
  proxied: AcquireRelease;
  /** Paced as a run's client is; interleaved op by op with `alone`. */
  paced: AcquireRelease;
  /** The strategy's own acquire/release (strategyAlone), paced, interleaved with `paced`. Absent for postgres. */
  alone?: AcquireRelease;
  /** ZooKeeper's acquire taken apart per member. */
  zkParts?: ZkParts[];
}

/** The servers a lock's floor needs: its own, and Postgres, which a lock context names too. */
function floorCluster(floor: FloorName): ClusterSpec {
  const none = { redis: 0, etcd: 0, zk: 0, pg: true };
  if (floor === 'redis') return { ...none, redis: 1 };
  if (floor === 'redis×5') return { ...none, redis: 5 };
  if (floor === 'etcd') return { ...none, etcd: FULL_CLUSTER.etcd };
  if (floor === 'zookeeper') return { ...none, zk: FULL_CLUSTER.zk };
  return none;
}

async function measureLockFloor(lock: string, samples: number): Promise<LockFloor> {
  const floor = floorFor(lock);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-bench-floor-'));
  const cluster = await createLocalCluster(floorCluster(floor), dir, new PidRegistry(runPath(dir, 'pids')));
  const proxies: TcpProxy[] = [];
  const closers: (() => Promise<unknown> | void)[] = [];
  // Each floor twice: straight to the port, and through a proxy of the harness in front of that port.
  const via = async (port: number, proxied: boolean): Promise<number> => {
    if (!proxied) return port;
    const p = await TcpProxy.start({ targetPort: port });
    proxies.push(p);
    return p.port;
  };
  try {
    await cluster.start();
    const direct = await timed(await floorPair(floor, cluster, (p) => via(p, false), closers), samples);
    const proxied = await timed(await floorPair(floor, cluster, (p) => via(p, true), closers), samples);
    // Paced: ~10 ms a sample, so fewer of them (500 take ~5 s a floor).
    const paced = Math.min(samples, PACED_SAMPLES);
    const bare = await floorPair(floor, cluster, (p) => via(p, false), closers);
    if (lock === 'postgres') {
      // postgres takes no lock: its floor is already the run's own statement.
      const [pacedFloor] = await timedInterleaved([bare], paced);
      return { floor, direct, proxied, paced: pacedFloor };
    }
    const [pacedFloor, alone] = await timedInterleaved([bare, await strategyPair(lock, cluster, closers)], paced);
    const zkParts = lock === 'zookeeper' ? await zkMemberParts(cluster, paced, closers) : undefined;
    return { floor, direct, proxied, paced: pacedFloor, alone, ...(zkParts ? { zkParts } : {}) };
  } finally {
    for (const c of closers) await Promise.resolve(c()).catch(() => {});
    for (const p of proxies) await p.close().catch(() => {});
    await cluster.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function printFloor(lock: string, f: LockFloor): void {
  console.log(
    `floor ${lock.padEnd(11)} ${f.floor}: direct acquire p50 ${ms(f.direct.acquire.p50)} p99 ${ms(f.direct.acquire.p99)}, release p50 ${ms(f.direct.release.p50)}; ` +
      `through the proxy acquire p50 ${ms(f.proxied.acquire.p50)} (+${ms(f.proxied.acquire.p50 - f.direct.acquire.p50)}); ` +
      `paced (0–${STAGGER_MS} ms idle before each) acquire p50 ${ms(f.paced.acquire.p50)} p99 ${ms(f.paced.acquire.p99)}` +
      (f.alone ? `; the strategy alone, paced, interleaved with it: acquire p50 ${ms(f.alone.acquire.p50)}` : ''),
  );
  for (const z of f.zkParts ?? []) {
    console.log(
      `zookeeper member ${z.member} (${z.mode ?? 'mode unknown'}), paced p50: create ${ms(z.create.p50)}, recipe's round trips ${ms(z.recipe.p50)}, strategy acquire ${ms(z.strategy.p50)}`,
    );
  }
}

/**
 * Paced, as a run's client is: before each acquire, a seeded 0–20 ms idle gap (on this VM an op after an idle gap
 * costs more than one back to back — CPU wake-up; measured: ioredis SET p50 0.11 ms back to back, 0.36 ms after 10 ms
 * idle — and a run's client always comes to its acquire after its stagger). Several pairs at once, op by op in turn:
 * drift on a shared machine hits them alike, so their difference is theirs, not the minute's.
 */
async function timedInterleaved(pairs: Pair[], samples: number, paced = true): Promise<AcquireRelease[]> {
  for (const pair of pairs) await warmUp(pair, samples);
  const acquire = pairs.map((): number[] => []);
  const release = pairs.map((): number[] => []);
  const random = seededRandom(14);
  for (let i = 0; i < samples; i++) {
    for (const [k, pair] of pairs.entries()) {
      if (paced) await sleep(random() * STAGGER_MS);
      let t = performance.now();
      await pair.acquire();
      acquire[k].push(performance.now() - t);
      t = performance.now();
      await pair.release();
      release[k].push(performance.now() - t);
    }
  }
  return pairs.map((_, k) => ({ acquire: quantiles(acquire[k]), release: quantiles(release[k]) }));
}

/** How a floor reaches its servers: the real port, or a proxy's; and where it leaves what must be closed. */
interface FloorLink {
  port: (real: number) => Promise<number>;
  closers: (() => Promise<unknown> | void)[];
}

const FLOOR_OWNER = `floor-${process.pid}`;

/** The bare acquire/release of one floor, connected through `port(real)` (the real port, or a proxy's). */
async function floorPair(
  name: FloorName,
  cluster: Cluster,
  port: (real: number) => Promise<number>,
  closers: (() => Promise<unknown> | void)[],
): Promise<Pair> {
  const link: FloorLink = { port, closers };
  if (name === 'redis') return redisFloor(cluster.redis.slice(0, 1), link);
  if (name === 'redis×5') return redisFloor(cluster.redis, link);
  if (name === 'etcd') return etcdFloor(cluster, link);
  if (name === 'zookeeper') return zkFloor(cluster, link);
  return pgFloor(cluster, link);
}

/** SET NX PX on every node, released by the owner-checking script. */
async function redisFloor(nodes: Cluster['redis'], { port, closers }: FloorLink): Promise<Pair> {
  const conns = await Promise.all(
    nodes.map(async (n) => {
      const r = new Redis({ ...n.endpoint(), port: await port(n.port), lazyConnect: true, maxRetriesPerRequest: 1 });
      await r.connect();
      closers.push(() => r.disconnect());
      return r;
    }),
  );
  return {
    acquire: () =>
      Promise.all(
        conns.map(async (r) => {
          if ((await r.set('floor', FLOOR_OWNER, 'PX', BENCH_TTL_MS, 'NX')) !== 'OK')
            throw new Error('floor: redis SET NX failed: the key was not released');
        }),
      ),
    release: () => Promise.all(conns.map((r) => r.eval(RELEASE_IF_OWNER, 1, 'floor', FLOOR_OWNER))),
  };
}

/** A create-if-absent transaction, deleted by a value-checking one. */
async function etcdFloor(cluster: Cluster, { port, closers }: FloorLink): Promise<Pair> {
  const client = new Etcd3({
    hosts: await Promise.all(cluster.etcd.map(async (n) => `http://127.0.0.1:${await port(n.port)}`)),
    dialTimeout: 1000,
    // As the lock clients do: the run's etcd user, whose role may touch `fencepost/` only (auth is on).
    auth: cluster.etcd[0]!.userAuth,
  });
  const key = 'fencepost/floor';
  closers.push(() => client.close());
  return {
    acquire: async () => {
      const r = await client.if(key, 'Create', '==', 0).then(client.put(key).value(FLOOR_OWNER)).commit();
      if (!r.succeeded) throw new Error('floor: etcd create-if-absent txn failed: the key was not released');
    },
    release: () => client.if(key, 'Value', '==', FLOOR_OWNER).then(client.delete().key(key)).commit(),
  };
}

const zkCall = <T>(f: (cb: (e: unknown, r: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((e, r) => (e ? reject(e) : resolve(r))));

/** A session to one ZooKeeper member, connected (or a rejection after 10 s). */
async function zkSession(connect: string): Promise<zookeeper.Client> {
  const zk = zookeeper.createClient(connect, { sessionTimeout: 4000, retries: 0 });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`floor: ZooKeeper at ${connect} did not connect in 10 s`)), 10_000);
    zk.once('connected', () => (clearTimeout(t), resolve()));
    zk.connect();
  });
  return zk;
}

/**
 * An ephemeral sequential node, removed. One session per member, used in turn: a ZooKeeper client talks to the
 * one member it connected to, and a create through a follower costs a forward to the leader that a create on the
 * leader does not (measured on this machine, paced p50: 1.1–2.5 ms depending on the member). The run's client
 * picks a member at random, so the floor is all members pooled, not whichever one a single session would land on.
 */
async function zkFloor(cluster: Cluster, { port, closers }: FloorLink): Promise<Pair> {
  const sessions = await Promise.all(
    cluster.zk.map(async (n) => {
      const zk = await zkSession(`127.0.0.1:${await port(n.port)}`);
      closers.push(() => zk.close());
      return zk;
    }),
  );
  await zkCall<string>((cb) => sessions[0].mkdirp('/floor', cb));
  let turn = 0;
  let held: { zk: zookeeper.Client; node: string } | null = null;
  return {
    acquire: async () => {
      const zk = sessions[turn++ % sessions.length];
      const node = await zkCall<string>((cb) =>
        zk.create('/floor/lock-', Buffer.from(FLOOR_OWNER), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb),
      );
      held = { zk, node };
    },
    release: () => zkCall<void>((cb) => held!.zk.remove(held!.node, -1, (e) => cb(e, undefined))),
  };
}

/**
 * What the postgres "lock" is: the conditional write itself — the very statement a run's client sends
 * (workloads/resource.ts `write` in `version` mode: the conditional UPDATE and its ledger INSERT in one statement),
 * on the run's own tables. Its "release" is the read that gives the next write its version, as in a run.
 */
async function pgFloor(cluster: Cluster, { port, closers }: FloorLink): Promise<Pair> {
  const config = { ...cluster.pg!.connectionConfig(), port: await port(cluster.pg!.port) };
  await setupResource(config, 1);
  const resource = await Resource.connect(config);
  closers.push(() => resource.close());
  let read = await readOk(resource);
  return {
    acquire: async () => {
      const delta = 1;
      const w: WriteValue = {
        account: 0,
        from: read.balance,
        to: read.balance + delta,
        delta,
        basedOn: read.lastWriteId,
        version: read.version,
      };
      const r = await resource.write(w, 'version', 0);
      if (!r.ok) throw new Error(`floor: postgres write refused (${r.reason}): nobody else writes there`);
    },
    release: async () => {
      read = await readOk(resource);
    },
  };
}

async function readOk(resource: Resource): Promise<ReadOk> {
  const r = await resource.read(0);
  if ('stale' in r) throw new Error('floor: postgres read refused without a token');
  return r;
}

/**
 * ZooKeeper's acquire taken apart on each member (see ZkParts). A session to one member only, so its role
 * shows: a create through a follower is forwarded to the leader; reads are answered by the member itself.
 */
async function zkMemberParts(
  cluster: Cluster,
  samples: number,
  closers: (() => Promise<unknown> | void)[],
): Promise<ZkParts[]> {
  const out: ZkParts[] = [];
  for (const [member, node] of cluster.zk.entries()) {
    const connect = `127.0.0.1:${node.port}`;
    const zk = await zkSession(connect);
    closers.push(() => zk.close());
    const dir = `/floor-recipe-${member}`;
    await zkCall<string>((cb) => zk.mkdirp(dir, cb));
    const create = () =>
      zkCall<string>((cb) =>
        zk.create(`${dir}/lock-`, Buffer.from(FLOOR_OWNER), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb),
      );
    const remove = (path: string) => zkCall<void>((cb) => zk.remove(path, -1, (e) => cb(e, undefined)));
    let bareNode = '';
    let recipeNode = '';
    const bare: Pair = { acquire: async () => (bareNode = await create()), release: () => remove(bareNode) };
    const recipe: Pair = {
      acquire: async () => {
        recipeNode = await create();
        await Promise.all([
          zkCall<string[]>((cb) => zk.getChildren(dir, cb)),
          zkCall<unknown>((cb) => zk.exists(recipeNode, cb)),
        ]);
      },
      release: () => remove(recipeNode),
    };
    // The strategy as a run's client connects it, on a session to this member alone.
    const strategy = await strategyPair('zookeeper', cluster, closers, (ctx) => ({ ...ctx, zookeeper: connect }));
    const [b, r, st] = await timedInterleaved([bare, recipe, strategy], samples);
    out.push({ member, mode: await node.mode(), create: b.acquire, recipe: r.acquire, strategy: st.acquire });
  }
  return out;
}

/**
 * The lock's own acquire and release without the harness: the strategy module a run's client loads, connected the
 * way a run's client is (clientSpecs' context, straight to the ports), called from this process. Against the bare op
 * it is what the lock's own code and client library cost; against the run's figure, what the harness and the
 * client process around the strategy add.
 */
async function strategyPair(
  lock: string,
  cluster: Cluster,
  closers: (() => Promise<unknown> | void)[],
  narrow: (ctx: LockContext) => LockContext = (ctx) => ctx,
): Promise<Pair> {
  const config = resolveConfig([`--lock=${lock}`, '--concurrency=1', '--nemesis=none', `--ttl=${BENCH_TTL_MS}`]);
  const strategy = await loadStrategy(lock);
  const { specs } = clientSpecs(config, strategy, cluster, new Map(), runNeeds([]));
  const module = (await import(strategy.moduleUrl)) as { default: LockStrategy };
  const client = await settled(() => module.default.connect(narrow(specs[0].ctx)));
  closers.push(() => client.close());
  let lease: Lease | undefined;
  return {
    acquire: async () => (lease = await client.acquire('account-0')),
    release: () => client.release(lease!),
  };
}
