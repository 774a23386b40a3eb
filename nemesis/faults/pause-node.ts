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
  unavailable: (env) => (lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to pause'),
  async start(ctx) {
    const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair).filter((s) => s.node.running && !s.node.paused);
    if (!servers.length) return null;
    const leader = await leaderOf(servers);
    const target = leader ?? pick(ctx.random, servers);
    if (ctx.signal.aborted) return null;
    const pids = target.node.pids();
    await target.node.pause();
    return {
      targets: [`${leader ? `${target.node.kind} leader ` : ''}${target.node.name}`],
      params: { durationMs: ctx.config.pauseMs, pids, leader: leader !== null },
      holdMs: ctx.config.pauseMs,
      async heal() {
        await target.node.resume();
      },
    };
  },
};
