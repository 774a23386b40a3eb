import { pick, type FaultExecutor } from '../../nemesis/fault.ts';
import { leaderOf, lockServerKind, lockServers } from '../../nemesis/lock-servers.ts';

/**
 * SIGKILL a server of the lock service and restart it *with its data* after `--restart-delay` ms: an etcd or
 * ZooKeeper member — the leader half of the time (when there is one), so elections are exercised — or, for
 * --lock=postgres|none, Postgres itself (crash recovery of the resource). Redis masters are not this fault's:
 * restart-empty kills them, with or without their AOF.
 */
export const kill: FaultExecutor<'kill'> = {
  name: 'kill',
  needs: { onTarget: { adapter: 'kill' } },
  refusal: (servers, lock) =>
    lockServerKind(servers) === 'redis'
      ? `--lock=${lock} is served by Redis masters: use restart-empty (with --redis-persistence=aof-always they restart with their data)`
      : null,
  unavailable(env) {
    if (!lockServers(env.servers, env.cluster, null).length) return 'the run has no server to kill';
    return kill.refusal(env.servers, env.config.lock);
  },
  async start(ctx) {
    const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair).filter((s) => s.node.running && !s.node.paused);
    if (!servers.length) return null;
    const leader = ctx.random() < 0.5 ? await leaderOf(servers) : null;
    const target = leader ?? pick(ctx.random, servers);
    if (ctx.signal.aborted) return null;
    const node = target.node;
    await node.kill();
    ctx.down.add(node);
    return {
      targets: [`${leader ? `${node.kind} leader ` : ''}${node.name}`],
      params: { downMs: ctx.config.restartDelayMs, leader: leader !== null, withData: true },
      holdMs: ctx.config.restartDelayMs,
      async heal() {
        const t0 = performance.now();
        await node.start();
        ctx.down.delete(node);
        const restartedInMs = Math.round(performance.now() - t0);
        // The evidence that the member came back: a client call it answers after the restart (start() already
        // waited for one; this one is recorded). fault-hits.ts counts a kill whose member did not answer as a miss.
        try {
          await node.version();
          return { params: { restartedInMs, rejoined: true } };
        } catch (err) {
          return {
            params: { restartedInMs, rejoined: false },
            note: `${node.name} did not answer after its restart: ${(err as Error).message}`,
          };
        }
      },
    };
  },
};
