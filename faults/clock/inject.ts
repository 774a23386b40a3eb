import type { ClusterNode } from '../../cluster/node.ts';
import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { FaultAim } from '../fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { everyRedisMaster, leaderOf, lockServerKind, lockServers } from '../../nemesis/lock-servers.ts';
import { clockNote } from '../../nemesis/clock-note.ts';
import { shimCannotMove } from '../clock-shim.ts';
import { nextKeyHolders } from '../../nemesis/key-holders.ts';
import { NO_TARGET_CLOCK, pastTheSection } from '../../nemesis/fault-needs.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { watchFor } from '../../nemesis/story-watch.ts';

/** How long the bump waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * Jump the wall clock of the servers holding the lock forward by `--clock-offset` s (through the LD_PRELOAD
 * shim), hold it until another client was granted the holder's account or the holder's write completed (the story
 * can go no further: faults/judging/server-story.ts) — at most `--pause` ms — then reset it. Aimed like restart-empty: for Redis it waits until a client is
 * inside its critical section and moves the clocks of exactly as many Redis nodes holding its key as it takes for
 * another client to win the lock (every Redis node of the run is asked, so a plugin's single node is found like
 * redis[0] for --lock=redis): Redis computes expiry from the wall clock, so the key expires at once and the next
 * SET NX wins. For etcd / ZooKeeper it moves the leader's clock, for Postgres the server's, also while a client is
 * inside its critical section; the note says where a skew can't have an effect.
 *
 * A caveat of forward jumps that is real, not ours: a key set during the jump expires `offset` later once the
 * clock is reset. Clients release their locks, so only a lock whose holder crashed then lingers.
 */
export const clock: FaultExecutor<'clock'> = {
  name: 'clock',
  // The clock shim comes with `movesClocks` in its catalogue row.
  needs: { liveOps: true, shotMs: pastTheSection, onTarget: NO_TARGET_CLOCK },
  refusal: (servers, lock) => {
    const why = shimCannotMove(lockServerKind(servers));
    return why ? `--lock=${lock}'s lock is held by its ${lockServerKind(servers)} servers: ${why}` : null;
  },
  unavailable: (env) =>
    clock.refusal(env.servers, env.config.lock) ?? (env.clocks ? null : 'the clock shim was not built for this run'),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const offsetMs = ctx.config.clockOffsetS * 1000;
    const masters = everyRedisMaster(ctx.cluster, ctx.pair).map((m) => m.node);
    const deadline = performance.now() + AIM_TIMEOUT_MS;
    let targets: ClusterNode[] = [];
    let aim: FaultAim;
    let evidence: Record<string, unknown> = {};
    if (masters.length) {
      const { found } = await nextKeyHolders(ctx, masters, deadline);
      if (!found || ctx.aim.aborted) return null;
      targets = found.victims;
      for (const t of targets) clocks.set(t.name, offsetMs);
      aim = aimAt(found.section, strikeNow(ctx.journal), {
        struck: targets.map((t) => t.name),
        keysOn: found.keysOn,
        needed: found.needed,
      });
      evidence = { keys: found.keys, holder: `p${found.section.process}`, holding: found.holding.map((n) => n.name) };
    } else {
      // Every member of a consensus service (and Postgres) stores every key: the leader's clock is the one that
      // could matter. Found first, then moved synchronously as a client enters its critical section.
      const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair);
      const named = ctx.only ? servers.find((s) => ctx.only!.has(s.node.name)) : undefined;
      const target = (named ?? (await leaderOf(servers)) ?? servers[0]).node;
      let strike: Strike = { atIndex: 0, atTime: 0 };
      const section = await ctx.sections.next(
        ctx.aim,
        deadline - performance.now(),
        (s) => !ctx.clients.clients[s.slot]?.paused,
        () => {
          clocks.set(target.name, offsetMs);
          strike = strikeNow(ctx.journal);
        },
      );
      if (!section) return null;
      targets = [target];
      aim = aimAt(section, strike, { struck: [target.name] });
      evidence = { holder: `p${section.process}` };
    }
    const { process: holder, account, atTime } = aim;
    const next = watchFor(
      ctx.journal,
      (op) =>
        isOtherGrant(op, holder, account, atTime ?? 0) ||
        (op.process === holder && op.f === 'write' && op.type !== 'invoke'),
    );
    const note = clockNote(targets.map((t) => t.kind));
    if (note) ctx.log(`fencepost: nemesis: clock: ${note}`);
    return {
      targets: targets.map((t) => t.name),
      params: {
        offsetMs,
        offsets: Object.fromEntries(targets.map((t) => [t.name, offsetMs])),
        // The longest it holds the jump: it heals once another client was granted the key or the holder wrote.
        maxMs: ctx.config.pauseMs,
        ...evidence,
        aim,
      },
      note,
      holdMs: ctx.config.pauseMs,
      ready: next.seen,
      async heal() {
        next.stop();
        for (const t of targets) clocks.set(t.name, 0);
        return { params: { offsets: Object.fromEntries(targets.map((t) => [t.name, 0])) } };
      },
    };
  },
};
