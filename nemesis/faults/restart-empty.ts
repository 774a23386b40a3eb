import { pickSome, type FaultExecutor } from '../fault.ts';
import { mastersToBreak, redisMasters } from '../lock-servers.ts';

/** How long restart-empty waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * A Redis master restarts without the lock it granted, while the holder is inside its critical section:
 * SIGKILL, wipe its data dir, start again after `--restart-delay` ms with no persistence — so another client
 * can win the lock (the single node, or a Redlock majority) while the first still believes it holds it.
 *
 * Which masters: only those that hold the holder's key (asked directly on each node's real port), and exactly as
 * many of them as it takes for another client to reach a majority — `mastersToBreak` (3 when the holder got all
 * 5 masters, 1 when it got 3, the one node for --lock=redis). Why not one master, as in the spec's prose? A
 * holder without contention gets all 5 masters, and one empty master of 5 leaves the key on 4: no one else
 * can win, the fault would prove nothing, and the oracle's "lost" cell would never be measured. Why not all
 * of them? That also works, but the minimum is the sharper claim: losing that many at once is enough. They
 * are killed together and restarted together, as fast as we can, because the window is short: the holder
 * writes after its think time (--think, 100 ms by default) and another client must have acquired and read
 * before that for an update to be lost. When it misses, the next round aims again.
 *
 * The variants that close the hole, as the spec says: `--restart-delay` ≥ the TTL (every lock the node granted
 * has expired before it answers again), and `--redis-persistence=aof-always` (the node is killed and restarted
 * with its AOF, which `appendfsync always` wrote before acknowledging the lock: the key comes back).
 */
export const restartEmpty: FaultExecutor = {
  name: 'restart-empty',
  unavailable: (env) => (redisMasters(env.config.lock, env.cluster, null).length ? null : `--lock=${env.config.lock} uses no Redis master`),
  async start(ctx) {
    const { config } = ctx;
    const masters = redisMasters(config.lock, ctx.cluster, ctx.pair).map((m) => m.node);
    const keepData = config.redisPersistence === 'aof-always';
    const deadline = performance.now() + AIM_TIMEOUT_MS;
    let sections = 0;
    while (performance.now() < deadline) {
      const section = await ctx.sections.next(ctx.signal, deadline - performance.now(), (s) => !ctx.clients.clients[s.slot]?.paused);
      if (!section) break;
      sections++;
      const { nodes: holding, keys } = await ctx.redisKeys.holding(masters, section.account);
      const k = mastersToBreak(holding.length, masters.length);
      // The holder's key already expired (or it never held a majority): nothing to break this time.
      if (k === 0 || ctx.signal.aborted) continue;
      const victims = pickSome(ctx.random, holding, k);
      await Promise.all(victims.map((v) => v.kill()));
      for (const v of victims) {
        ctx.down.add(v);
        if (!keepData) v.wipe();
      }
      return {
        targets: victims.map((v) => v.name),
        params: {
          keys,
          holder: `p${section.process}`,
          holding: holding.map((n) => n.name),
          masters: masters.length,
          killed: victims.map((n) => n.name),
          restartDelayMs: config.restartDelayMs,
          ttlMs: config.ttlMs,
          persistence: config.redisPersistence,
          wiped: !keepData,
        },
        note: keepData ? 'killed and restarted with its AOF (appendfsync always): the lock keys come back' : undefined,
        holdMs: config.restartDelayMs,
        async heal() {
          const t0 = performance.now();
          await Promise.all(victims.map((v) => v.start()));
          for (const v of victims) ctx.down.delete(v);
          return { params: { restartedInMs: Math.round(performance.now() - t0) } };
        },
      };
    }
    if (sections && !ctx.signal.aborted) {
      ctx.log(`fencepost: nemesis: restart-empty: ${sections} critical sections seen, none with its lock key (*account-<n>) on enough masters to break`);
    }
    return null;
  },
};
