import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Cluster, ClusterSpec } from '../../cluster/cluster.ts';
import { createLocalCluster } from '../../cluster/local/cluster.ts';
import { PidRegistry } from '../../common/pid-registry.ts';
import type { LockClient, LockContext, LockStrategy } from '../../locks/strategy.ts';
import { requireServersTier } from './servers-tier.ts';

export interface StrategyTestCluster {
  /** The running cluster (set once the file's beforeAll hooks run). */
  readonly cluster: Cluster;
  /** A lock context pointing at the cluster; each call is the next client slot, with its own seed. */
  ctx(over?: Partial<LockContext>): LockContext;
  /** Connect a client of the strategy under test; it is closed after the file. */
  connect(over?: Partial<LockContext>): Promise<LockClient>;
}

/**
 * The real cluster a strategy's test file runs against: started before the file's tests (and before the file's
 * own beforeAll hooks, which may open observers on it), torn down after them with every client connected.
 */
export function useStrategyCluster(
  strategy: LockStrategy,
  spec: ClusterSpec,
  opts: { ttlMs: number; acquireTimeoutMs: number; seed: number },
): StrategyTestCluster {
  requireServersTier(`useStrategyCluster(${strategy.name})`);
  let runDir: string | undefined;
  let cluster: Cluster | undefined;
  const clients: LockClient[] = [];

  beforeAll(async () => {
    runDir = await mkdtemp(join(tmpdir(), `fencepost-${strategy.name}-`));
    cluster = await createLocalCluster(spec, runDir, new PidRegistry(join(runDir, 'pids')));
    await cluster.start();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await cluster?.teardown();
    if (runDir) await rm(runDir, { recursive: true, force: true });
  });

  const self: StrategyTestCluster = {
    get cluster() {
      if (!cluster) throw new Error('the cluster is not started yet: use it inside a test or hook');
      return cluster;
    },
    ctx(over = {}) {
      const c = self.cluster;
      return {
        redis: spec.redis ? c.redis.map((n) => n.endpoint()) : [],
        etcd: spec.etcd ? c.etcd.map((n) => n.endpoint) : [],
        ...(c.etcd[0] ? { etcdAuth: c.etcd[0].userAuth } : {}),
        zookeeper: spec.zk ? c.zk.map((n) => n.connectString).join(',') : '',
        ...(c.zk[0] ? { zookeeperAuth: c.zk[0].userAuth } : {}),
        ...(c.dynamodb ? { dynamodb: c.dynamodb.clientConfig() } : {}),
        ttlMs: opts.ttlMs,
        acquireTimeoutMs: opts.acquireTimeoutMs,
        client: clients.length,
        seed: opts.seed + clients.length,
        ...over,
      };
    },
    async connect(over = {}) {
      const client = await strategy.connect(self.ctx(over));
      clients.push(client);
      return client;
    },
  };
  return self;
}
