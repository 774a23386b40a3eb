import { setTimeout as sleep } from 'node:timers/promises';
import { aimAt, strikeNow } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheSection, widerThanARestart } from '../../nemesis/fault-needs.ts';

/** How long the replication link stays cut waiting for a client to take a lock, before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * The seed table's first row. The replica stops receiving the primary's writes (the replication link is cut:
 * lag, for at least a TTL), a client takes the lock on the primary and enters its critical section, the primary is SIGKILLed, the
 * replica is promoted (REPLICAOF NO ONE, as Sentinel would) and clients are sent to it — without the lock key.
 * Another client wins the lock while the first still holds it. After `--restart-delay` ms the old primary comes
 * back (empty) as a replica of the new one, so the fault can happen again with the roles swapped.
 */
export const failover: FaultExecutor<'failover'> = {
  name: 'failover',
  needs: {
    failoverPair: true,
    clientProxies: true,
    liveOps: true,
    shotMs: pastTheSection,
    minSectionMs: widerThanARestart,
    onTarget:
      'it kills a primary fencepost started and promotes a replica fencepost started, re-pointing the proxy its clients use; a target fails over by its own means (a cloud test-failover call through an exec adapter is not built yet)',
  },
  refusal: (servers, lock) =>
    servers.redis
      ? null
      : `--lock=${lock} uses no Redis: failover promotes a Redis replica (the single-Redis setup of --lock=redis)`,
  unavailable: (env) =>
    failover.refusal(env.servers, env.config.lock) ??
    (env.cluster.failover ? null : `--lock=${env.config.lock} has no Redis primary/replica pair`),
  async start(ctx) {
    const pair = ctx.pair;
    if (!pair || ctx.aim.aborted) return null;
    pair.cutReplication();
    const cutAt = ctx.journal.size;
    const t0 = performance.now();
    // Lag of at least one TTL: every lock key the replica got before the cut has expired by then, and the
    // releases (DELs) it missed don't matter. With a shorter lag the promoted replica would still hold some
    // earlier holder's key and refuse everyone — the lock survives by luck, not by design.
    await sleep(ctx.config.ttlMs, undefined, { signal: ctx.aim }).catch(() => {});
    // A lock taken after the cut exists only on the primary.
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => s.acquireIndex >= cutAt && !ctx.clients.clients[s.slot]?.paused,
    );
    if (!section || ctx.aim.aborted) {
      pair.restoreReplication();
      return null;
    }
    const lagMs = Math.round(performance.now() - t0);
    // The strike is the primary's SIGKILL, the first thing pair.failover does: from then on the holder's key is
    // gone from every node that will serve clients (when the promoted replica lacks it: keyOnPromoted false).
    const strike = strikeNow(ctx.journal);
    const {
      killed,
      promoted,
      seen: keyOnPromoted,
    } = await pair.failover(async (p) => (await ctx.redisKeys.holding([p], section.account)).nodes.length > 0);
    ctx.down.add(killed);
    return {
      targets: [`${killed.name} (primary, killed)`, `${promoted.name} (replica, promoted)`],
      params: {
        account: section.account,
        holder: `p${section.process}`,
        replicationCutMs: lagMs,
        keyOnPromoted,
        restartDelayMs: ctx.config.restartDelayMs,
        aim: aimAt(section, strike, { struck: [promoted.name] }),
      },
      holdMs: ctx.config.restartDelayMs,
      async heal() {
        await pair.rejoin();
        ctx.down.delete(killed);
        return { note: `${killed.name} rejoined as a replica of ${promoted.name}` };
      },
    };
  },
};
