import { pick, type FaultExecutor } from '../fault.ts';
import { leaderOf, lockServers } from '../lock-servers.ts';

/**
 * SIGSTOP a server the lock depends on — every process of it (Postgres backends call setsid(), so the node
 * signals each pid rather than a process group) — for `--pause` ms: a Redis master (random one for Redlock),
 * the etcd or ZooKeeper leader (a random member when there is no leader right now), or Postgres.
 */
export const pauseNode: FaultExecutor = {
  name: 'pause-node',
  needs: {},
  refusal: () => null,
  unavailable: (env) => (lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to pause'),
  async start(ctx) {
    const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair).filter((s) => s.node.running && !s.node.paused);
    if (!servers.length) return null;
    const leader = await leaderOf(servers);
    const target = leader ?? pick(ctx.random, servers);
    if (ctx.signal.aborted) return null;
    const pids = target.node.pids();
    await target.node.pause();
    // The evidence that it acted: live processes of a running server, now stopped (fault-hits.ts judges it).
    const stopped = pids.length > 0 && target.node.running && target.node.paused;
    return {
      targets: [`${leader ? `${target.node.kind} leader ` : ''}${target.node.name}`],
      // `leader`: for etcd / ZooKeeper, whether the member stopped was the leader (false: none answered as one).
      params: { durationMs: ctx.config.pauseMs, pids, stopped, leader: leader !== null },
      holdMs: ctx.config.pauseMs,
      async heal() {
        await target.node.resume();
      },
    };
  },
};
