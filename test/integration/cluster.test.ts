import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_CLUSTER, type Cluster } from '../../cluster/cluster.ts';
import { createLocalCluster } from '../../cluster/local/cluster.ts';
import { dataElsewhereOf } from '../../cluster/server-node.ts';
import { isAlive, PidRegistry, processState } from '../../common/pid-registry.ts';
import { MEMORY_DIR, memoryDir } from '../../common/memory-dir.ts';
import { eventually } from '../support/eventually.ts';

/** The whole local backend, booted once for this file: 5 Redis, 3 etcd, 3 ZooKeeper, Postgres. */
let dir: string;
let cluster: Cluster;
let allPids: number[] = [];
/** Where Postgres's data really lives (the run dir holds a link to it), read while the cluster runs. */
let pgData = '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-cluster-'));
  cluster = await createLocalCluster(FULL_CLUSTER, dir, new PidRegistry(path.join(dir, 'pids')));
  await cluster.start();
  allPids = cluster.nodes.flatMap((n) => n.pids());
  pgData = fs.realpathSync(cluster.pg!.dataDir);
});

afterAll(async () => {
  await cluster?.teardown();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('local cluster', () => {
  it('starts 12 nodes on distinct 127.0.0.1 ports, each with its own data dir and log', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual([
      'redis[0]',
      'redis[1]',
      'redis[2]',
      'redis[3]',
      'redis[4]',
      'etcd[0]',
      'etcd[1]',
      'etcd[2]',
      'zk[0]',
      'zk[1]',
      'zk[2]',
      'pg',
    ]);
    expect(new Set(cluster.nodes.map((n) => n.port)).size).toBe(12);
    expect(new Set(cluster.nodes.map((n) => n.dataDir)).size).toBe(12);
    for (const n of cluster.nodes) {
      expect(n.running).toBe(true);
      expect(n.readyInMs).toBeGreaterThan(0);
      expect(fs.existsSync(n.logFile)).toBe(true);
    }
  });

  it('answers real client calls on every node', async () => {
    const versions = await Promise.all(cluster.nodes.map((n) => n.version()));
    expect(versions.slice(0, 5).every((v) => /^\d+\.\d+/.test(v))).toBe(true);
    expect(versions.every((v) => v !== 'unknown')).toBe(true);
    const modes = await Promise.all(cluster.zk.map((z) => z.mode()));
    expect(modes.filter((m) => m === 'leader')).toHaveLength(1);
    const leaders = new Set((await Promise.all(cluster.etcd.map((e) => e.status()))).map((s) => s.leader));
    expect(leaders.size).toBe(1);
  });

  it('pauses every Postgres process (postmaster and setsid() backends) and resumes them', async () => {
    const pg = cluster.pg!;
    const pids = pg.pids();
    expect(pids.length).toBeGreaterThan(3);
    await pg.pause();
    // SIGSTOP is asynchronous: the kernel marks each process stopped a moment later.
    const stopped = () => pids.map(processState).filter((s) => s === 'T').length;
    await eventually('every Postgres process stopped', () => stopped() === pids.length, 5_000).catch(() => {});
    expect(pids.map(processState)).toEqual(pids.map(() => 'T'));
    await pg.resume();
    await eventually('every Postgres process running again', () => stopped() === 0, 5_000).catch(() => {});
    expect(pids.map(processState).filter((s) => s === 'T')).toEqual([]);
    await expect(pg.version()).resolves.toMatch(/^\d+/);
  });

  it('kills a Redis master and starts it again on the same port, empty', async () => {
    const r = cluster.redis[1];
    const c = r.client();
    await c.connect();
    await c.set('k', 'v');
    c.disconnect();
    await r.kill();
    expect(r.running).toBe(false);
    r.wipe();
    await r.start();
    const c2 = r.client();
    await c2.connect();
    expect(await c2.get('k')).toBeNull();
    c2.disconnect();
  });

  it('stops and restarts an etcd member with its data', async () => {
    await cluster.etcd[2].stop();
    expect(cluster.etcd[2].running).toBe(false);
    await cluster.etcd[2].start();
    expect((await cluster.etcd[2].status()).leader).not.toBe('0');
  });

  it.skipIf(memoryDir() === null)(
    "keeps Postgres's data in memory (a private fencepost-pg-* folder in /dev/shm), linked from its node folder",
    () => {
      expect(fs.lstatSync(cluster.pg!.dataDir).isSymbolicLink()).toBe(true);
      expect(path.dirname(path.dirname(pgData))).toBe(MEMORY_DIR);
      expect(path.basename(path.dirname(pgData))).toMatch(/^fencepost-pg-/);
      expect(fs.statSync(path.dirname(pgData)).mode & 0o777).toBe(0o700);
      expect(fs.existsSync(path.join(pgData, 'PG_VERSION'))).toBe(true);
      expect(dataElsewhereOf(path.dirname(cluster.pg!.dataDir))).toBe(path.dirname(pgData));
    },
  );

  it("keeps Postgres's dynamic shared memory in its data dir, not in /dev/shm where a killed Postgres would leave it", () => {
    const mapped = cluster.pg!.pids().flatMap((pid) => fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n'));
    expect(mapped.filter((l) => l.includes('/dev/shm/PostgreSQL.'))).toEqual([]);
    expect(mapped.some((l) => l.includes(`${pgData}/pg_dynshmem/`))).toBe(true);
  });

  it('teardown resumes paused nodes and leaves no process behind', async () => {
    await cluster.redis[0].pause();
    await cluster.zk[0].pause();
    const pids = cluster.nodes.flatMap((n) => n.pids()).concat(allPids);
    await cluster.teardown();
    expect(pids.filter(isAlive)).toEqual([]);
    // Postgres's data, wherever it lived (in memory or in the node folder), is gone with the cluster.
    expect(fs.existsSync(pgData)).toBe(false);
  });
});
