import { Redis } from 'ioredis';
import { Etcd3 } from 'etcd3';
import zookeeper from 'node-zookeeper-client';
import type { Cluster } from '../cluster/cluster.ts';
import { RELEASE_IF_OWNER } from '../locks/parts/redis-scripts.ts';
import { Resource, setupResource } from '../workloads/resource.ts';
import type { ReadOk, WriteValue } from '../history/bank.ts';
import type { FloorName } from './overhead-goal.ts';
import type { Pair } from './pair-timing.ts';

/**
 * The bare operation each lock is built on, straight to a server's port (or a proxy's in front of it): the floor the
 * overhead benchmark holds a run's recorded latency against.
 */

/** The TTL the benchmark's floors, strategies and runs take. */
export const BENCH_TTL_MS = 2000;

/** How a floor reaches its servers: the real port, or a proxy's; and where it leaves what must be closed. */
interface FloorLink {
  port: (real: number) => Promise<number>;
  closers: (() => Promise<unknown> | void)[];
}

export const FLOOR_OWNER = `floor-${process.pid}`;

/** The bare acquire/release of one floor, connected through `port(real)` (the real port, or a proxy's). */
export async function floorPair(
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

export const zkCall = <T>(f: (cb: (e: unknown, r: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((e, r) => (e ? reject(e) : resolve(r))));

/** A session to one ZooKeeper member, connected (or a rejection after 10 s). */
export async function zkSession(connect: string): Promise<zookeeper.Client> {
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
