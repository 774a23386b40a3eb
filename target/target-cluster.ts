import type { AnyCluster, Cluster } from '../cluster/cluster.ts';
import { HarnessError } from '../common/errors.ts';
import type { NodeActions } from './remote-node.ts';
import { RemoteEtcd, RemoteRedis } from './remote-servers.ts';
import type { TargetLogins } from './target-credentials.ts';
import type { TargetSpec } from './target-spec.ts';

/** The target's servers as remote nodes: as many of each kind as the lock uses, in the file's order. */
export interface TargetServersOf {
  redis: RemoteRedis[];
  etcd: RemoteEtcd[];
}

/**
 * The remote nodes of `target` for a lock that runs on `counts` servers of each kind (254 when it has too few).
 * `keyPrefix`: where the run's keys go (a run's own namespace under the file's prefix; the file's prefix by default).
 */
export function targetServers(
  target: TargetSpec,
  counts: { redis: number; etcd: number; zk: number },
  logins: TargetLogins,
  actions: NodeActions,
  keyPrefix = target.keyPrefix,
): TargetServersOf {
  const short = (kind: string, have: number, need: number) =>
    new HarnessError(
      'bad-arguments',
      `the lock runs on ${need} ${kind} server${need > 1 ? 's' : ''}; target ${target.name} names ${have}`,
      { hint: `add ${kind} endpoints to ${target.file}, or test a lock that runs on ${have}` },
    );
  if (counts.zk) throw short('ZooKeeper', 0, counts.zk);
  if (counts.redis > (target.redis?.endpoints.length ?? 0))
    throw short('Redis', target.redis?.endpoints.length ?? 0, counts.redis);
  if (counts.etcd > (target.etcd?.endpoints.length ?? 0))
    throw short('etcd', target.etcd?.endpoints.length ?? 0, counts.etcd);
  const redis = (target.redis?.endpoints ?? [])
    .slice(0, counts.redis)
    .map((e) => new RemoteRedis(e, actions, keyPrefix, logins.redis, target.redis!.tls));
  // etcd members are one cluster: the client gets them all, whatever the lock's count says.
  const etcd = counts.etcd
    ? (target.etcd?.endpoints ?? []).map((e) => new RemoteEtcd(e, actions, keyPrefix, logins.etcd, target.etcd!.tls))
    : [];
  return { redis, etcd };
}

/**
 * A run's cluster against a target: the target's lock servers (never started, stopped or wiped by us) and the
 * resource's Postgres of fencepost's own (`local`, started and torn down as in any run). `start` starts the local part
 * and checks that every server of the target answers; `teardown` touches only the local part.
 */
export function targetCluster(servers: TargetServersOf, local: Cluster): AnyCluster {
  const remote = [...servers.redis, ...servers.etcd];
  return {
    redis: servers.redis,
    etcd: servers.etcd,
    zk: [],
    pg: local.pg,
    pgbouncer: local.pgbouncer,
    dynamodb: local.dynamodb,
    failover: null,
    nodes: [...remote, ...local.nodes],
    credentials: local.credentials,
    async start() {
      await local.start();
      const silent = [];
      for (const n of remote) if (!(await n.reachable())) silent.push(`${n.name} (${n.host}:${n.port})`);
      if (silent.length) {
        await local.teardown();
        throw new HarnessError(
          'bad-arguments',
          `target server${silent.length > 1 ? 's' : ''} ${silent.join(', ')} did not answer`,
          {
            hint: 'check that it runs and that the credentials are right: `fencepost target check <file>`',
          },
        );
      }
    },
    async teardown() {
      await local.teardown();
    },
  };
}
