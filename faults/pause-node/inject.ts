import { pick, type FaultExecutor } from '../../nemesis/fault.ts';
import { leaderOf, lockServers } from '../../nemesis/lock-servers.ts';

/**
 * SIGSTOP a server the lock depends on — every process of it (Postgres backends call setsid(), so the node
 * signals each pid rather than a process group) — for `--pause` ms: a Redis master (random one for Redlock),
 * the etcd or ZooKeeper leader (a random member when there is no leader right now), or Postgres.
 */
export const pauseNode: FaultExecutor<'pause-node'> = {
  name: 'pause-node',
  needs: { onTarget: { adapter: 'pause' } },
  refusal: () => null,
  unavailable: (env) => (lockServers(env.servers, env.cluster, null).length ? null : 'the run has no server to pause'),
  async start(ctx) {
    const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair).filter((s) => s.node.running && !s.node.paused);
    if (!servers.length) return null;
    const leader = await leaderOf(servers);
    const target = leader ?? pick(ctx.random, servers);
    if (ctx.signal.aborted) return null;
    const { remote } = target.node;
    let pids = target.node.pids();
    await target.node.pause();
    // The evidence that it acted: live processes of a running server, now stopped (fault-hits.ts judges it). A
    // target's server (not ours): its adapter acted and the server itself stopped answering; the pids are the
    // adapter's (a container's main process), when it knows them.
    const seen = remote?.lastEvidence();
    if (seen) pids = target.node.pids();
    const stopped = seen
      ? seen.acted === true && seen.answered === false
      : pids.length > 0 && target.node.running && target.node.paused;
    return {
      targets: [`${leader ? `${target.node.kind} leader ` : ''}${target.node.name}`],
      // `leader`: for etcd / ZooKeeper, whether the member stopped was the leader (false: none answered as one).
      params: {
        durationMs: ctx.config.pauseMs,
        pids,
        stopped,
        leader: leader !== null,
        ...(remote ? { evidenceFrom: remote.via, adapter: seen } : {}),
      },
      holdMs: ctx.config.pauseMs,
      async heal() {
        await target.node.resume();
      },
    };
  },
};
