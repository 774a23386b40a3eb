import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { FULL_CLUSTER, type Cluster, type ClusterSpec } from '../cluster/cluster.ts';
import { createLocalCluster } from '../cluster/local/cluster.ts';
import { typedRun } from '../harness/typed-run.ts';
import { PidRegistry } from '../common/pid-registry.ts';
import { clientSpecs } from '../harness/client-specs.ts';
import { runNeeds } from '../nemesis/fault-registry.ts';
import { TcpProxy } from '../nemesis/proxy/tcp-proxy.ts';
import type { Lease, LockContext, LockStrategy } from '../locks/strategy.ts';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { runPath } from '../store/run-dir.ts';
import { overheadFor, type FloorName, type ZkParts } from './overhead-goal.ts';
import { ms, settled, STAGGER_MS, timed, timedInterleaved, type AcquireRelease, type Pair } from './pair-timing.ts';
import { BENCH_TTL_MS, FLOOR_OWNER, floorPair, zkCall, zkSession } from './protocol-floors.ts';

/**
 * One lock's floors for the overhead benchmark (bench/overhead.ts): on a cluster of its own servers, the bare
 * operation back to back, through a proxy, and paced beside the lock's own strategy called from this process.
 */

const PACED_SAMPLES = 500;

/** One lock's floors, measured on a cluster booted for it just before its run. */
export interface LockFloor {
  floor: FloorName;
  /** Back to back, straight to the port. */
  direct: AcquireRelease;
  /** Back to back, through one of the harness's proxies. */
  proxied: AcquireRelease;
  /** Paced as a run's client is; interleaved op by op with `alone`. */
  paced: AcquireRelease;
  /**
   * The strategy's own acquire/release (strategyAlone), paced, interleaved with `paced`. Absent for a lock timed on
   * its write.
   */
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

export async function measureLockFloor(lock: string, samples: number): Promise<LockFloor> {
  const { floor, timed: timedOp } = overheadFor(lock);
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
    if (timedOp === 'write') {
      // A lock that takes none (postgres): its floor is already the run's own statement.
      const [pacedFloor] = await timedInterleaved([bare], paced);
      return { floor, direct, proxied, paced: pacedFloor };
    }
    const [pacedFloor, alone] = await timedInterleaved([bare, await strategyPair(lock, cluster, closers)], paced);
    const zkParts = floor === 'zookeeper' ? await zkMemberParts(lock, cluster, paced, closers) : undefined;
    return { floor, direct, proxied, paced: pacedFloor, alone, ...(zkParts ? { zkParts } : {}) };
  } finally {
    for (const c of closers) await Promise.resolve(c()).catch(() => {});
    for (const p of proxies) await p.close().catch(() => {});
    await cluster.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printFloor(lock: string, f: LockFloor): void {
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
 * The acquire of a lock measured against the ZooKeeper floor, taken apart on each member (see ZkParts). A session to
 * one member only, so its role shows: a create through a follower is forwarded to the leader; reads are answered by
 * the member itself.
 */
async function zkMemberParts(
  lock: string,
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
    const strategy = await strategyPair(lock, cluster, closers, (ctx) => ({ ...ctx, zookeeper: connect }));
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
  const config = typedRun({ lock, concurrency: 1, nemesis: [], ttlMs: BENCH_TTL_MS });
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
