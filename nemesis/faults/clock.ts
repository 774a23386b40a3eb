import type { ClusterNode } from '../../harness/backends/node.ts';
import { pickSome, type FaultExecutor } from '../fault.ts';
import { leaderOf, lockServers, mastersToBreak, redisMasters } from '../lock-servers.ts';
import { clockNote } from './clock-note.ts';

/** How long the bump waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * Jump the wall clock of the servers holding the lock forward by `--clock-offset` s (through the LD_PRELOAD
 * shim), hold it `--pause` ms, then reset it. Aimed like restart-empty: for Redis it waits until a client is
 * inside its critical section and moves the clocks of exactly as many masters holding its key as it takes for
 * another client to win a majority (redis[0] for --lock=redis): Redis computes expiry from the wall clock, so
 * the key expires at once and the next SET NX wins. For etcd / ZooKeeper it moves the leader's clock, for
 * Postgres the server's; the note says where a skew can't have an effect.
 *
 * A caveat of forward jumps that is real, not ours: a key set during the jump expires `offset` later once the
 * clock is reset. Clients release their locks, so only a lock whose holder crashed then lingers.
 */
export const clock: FaultExecutor = {
  name: 'clock',
  unavailable: (env) => (env.clocks ? null : 'the clock shim was not built for this run'),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const offsetMs = ctx.config.clockOffsetS * 1000;
    const masters = redisMasters(ctx.config.lock, ctx.cluster, ctx.pair).map((m) => m.node);
    let targets: ClusterNode[] = [];
    let aim: Record<string, unknown> = {};
    if (masters.length) {
      const deadline = performance.now() + AIM_TIMEOUT_MS;
      while (!targets.length && performance.now() < deadline) {
        const section = await ctx.sections.next(ctx.signal, deadline - performance.now(), (s) => !ctx.clients.clients[s.slot]?.paused);
        if (!section) return null;
        const { nodes: holding, keys } = await ctx.redisKeys.holding(masters, section.account);
        targets = pickSome(ctx.random, holding, mastersToBreak(holding.length, masters.length));
        aim = { keys, holder: `p${section.process}`, holding: holding.map((n) => n.name) };
      }
    } else {
      const servers = lockServers(ctx.config.lock, ctx.cluster, ctx.pair);
      targets = [((await leaderOf(servers)) ?? servers[0]).node];
    }
    if (!targets.length || ctx.signal.aborted) return null;
    for (const t of targets) clocks.set(t.name, offsetMs);
    const note = clockNote(targets.map((t) => t.kind));
    if (note) ctx.log(`fencepost: nemesis: clock: ${note}`);
    return {
      targets: targets.map((t) => t.name),
      params: { offsetMs, offsets: Object.fromEntries(targets.map((t) => [t.name, offsetMs])), durationMs: ctx.config.pauseMs, ...aim },
      note,
      holdMs: ctx.config.pauseMs,
      async heal() {
        for (const t of targets) clocks.set(t.name, 0);
        return { params: { offsets: Object.fromEntries(targets.map((t) => [t.name, 0])) } };
      },
    };
  },
};
