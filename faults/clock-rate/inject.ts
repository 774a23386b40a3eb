import { setTimeout as sleepFor } from 'node:timers/promises';
import type { RedisServer } from '../../cluster/node.ts';
import { aimAt, strikeNow } from '../../nemesis/fault-aim.ts';
import type { FaultContext, FaultExecutor } from '../../nemesis/fault.ts';
import { everyRedisMaster } from '../../nemesis/lock-servers.ts';
import { nextKeyHolders } from '../../nemesis/key-holders.ts';
import { NO_TARGET_CLOCK, pastTheSection } from '../../nemesis/fault-needs.ts';
import type { PttlSample } from '../../nemesis/redis-key-probe.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { watchFor } from '../../nemesis/story-watch.ts';

/** How long the strike waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The probe key: not an account's lock key, so no aim or key read mistakes it for one. */
const PROBE_KEY = 'fencepost:clock-rate-probe';
/** The probe's TTL in the node's own time: long enough to outlive any shot at the fastest rate. */
const PROBE_PX_MS = 3_600_000;
/** The shortest harness time a slope is measured over: the two reads' round trips are then under 1 % of it. */
const MIN_PROBE_MS = 300;
/** Only the wall clock: Redis computes key expiry from it; waits and the monotonic clock run at real speed. */
const CLOCKS = ['realtime'] as const;
const SCOPE = 'wall';

/**
 * Run the wall clock of the Redis nodes holding the lock at `--clock-rate` × real speed (through the LD_PRELOAD
 * shim: a new segment starts where the clock is, so it never jumps), aimed like clock: once a client is inside its
 * critical section, on as many of the nodes holding its key as it takes for another client to win. Redis computes a
 * key's expiry from its wall clock, so at r > 1 the holder's key expires early (at r = 2 a 2 s TTL lasts 1 s real).
 * It holds until another client was granted the holder's account or the holder wrote — at most `--pause` ms — then
 * runs the clock at real speed again from where it got: the node's clock stays ahead by the drift it gathered and
 * never steps back.
 *
 * The proof that the rate reached the process, per node: the shim's read counter grew while the rate held, and a
 * probe key set at the strike lost PTTL at the rate on the harness's own clock (two reads ≥ 300 ms apart).
 */
export const clockRate: FaultExecutor<'clock-rate'> = {
  name: 'clock-rate',
  needs: { liveOps: true, shotMs: pastTheSection, onTarget: NO_TARGET_CLOCK },
  refusal: (servers, lock) =>
    servers.redis
      ? null
      : `--lock=${lock}'s lock is not held by Redis: clock-rate proves each shot with a Redis probe key, and has no probe for its servers yet`,
  unavailable: (env) =>
    clockRate.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run'),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const rate = ctx.config.clockRate;
    const masters = everyRedisMaster(ctx.cluster, ctx.pair).map((m) => m.node);
    const { found } = await nextKeyHolders(ctx, masters, performance.now() + AIM_TIMEOUT_MS);
    if (!found || ctx.aim.aborted) return null;
    const targets = found.victims;
    const readsBefore = new Map(targets.map((t) => [t.name, clocks.counters(t.name).reads]));
    for (const t of targets) clocks.setRate(t.name, { clocks: CLOCKS, rate, scope: SCOPE });
    const aim = aimAt(found.section, strikeNow(ctx.journal), {
      struck: targets.map((t) => t.name),
      keysOn: found.keysOn,
      needed: found.needed,
    });
    const firstReads = await Promise.all(targets.map((t) => ctx.redisKeys.setProbe(t, PROBE_KEY, PROBE_PX_MS)));
    const { process: holder, account, atTime } = aim;
    const next = watchFor(
      ctx.journal,
      (op) =>
        isOtherGrant(op, holder, account, atTime ?? 0) ||
        (op.process === holder && op.f === 'write' && op.type !== 'invoke'),
    );
    return {
      targets: targets.map((t) => t.name),
      params: {
        rate,
        ttlMs: ctx.config.ttlMs,
        clocks: [...CLOCKS],
        scope: SCOPE,
        keys: found.keys,
        holder: `p${found.section.process}`,
        holding: found.holding.map((n) => n.name),
        aim,
      },
      holdMs: ctx.config.pauseMs,
      ready: next.seen,
      async heal() {
        next.stop();
        const end = await measureAndHeal(ctx, targets, firstReads, readsBefore);
        return { params: end };
      },
    };
  },
};

/** Second probe reads (≥ MIN_PROBE_MS after the first), the rate back to 1, and `TIME` around that change. */
async function measureAndHeal(
  ctx: FaultContext,
  targets: RedisServer[],
  firstReads: (PttlSample | undefined)[],
  readsBefore: Map<string, bigint>,
) {
  const clocks = ctx.clocks!;
  const earliest = Math.min(...firstReads.map((s) => s?.atMs ?? Infinity));
  const waitMs = Number.isFinite(earliest) ? earliest + MIN_PROBE_MS - performance.now() : 0;
  if (waitMs > 0 && !ctx.interrupted.aborted)
    await sleepFor(waitMs, undefined, { signal: ctx.interrupted }).catch(() => {});
  const secondReads = await Promise.all(targets.map((t) => ctx.redisKeys.pttlSample(t, PROBE_KEY)));
  const before = await Promise.all(targets.map((t) => ctx.redisKeys.timeUs(t)));
  for (const t of targets) clocks.setRate(t.name, { clocks: CLOCKS, rate: 1, scope: SCOPE });
  const after = await Promise.all(targets.map((t) => ctx.redisKeys.timeUs(t)));
  const end = {
    slopes: {} as Record<string, number>,
    probeMs: {} as Record<string, number>,
    reads: {} as Record<string, number>,
    timeBeforeHealUs: {} as Record<string, number>,
    timeAfterHealUs: {} as Record<string, number>,
    driftMs: {} as Record<string, number>,
  };
  targets.forEach((t, i) => {
    const [a, b] = [firstReads[i], secondReads[i]];
    if (a && b && b.atMs > a.atMs) {
      end.slopes[t.name] = round4((a.pttlMs - b.pttlMs) / (b.atMs - a.atMs));
      end.probeMs[t.name] = Math.round(b.atMs - a.atMs);
    }
    end.reads[t.name] = Number(clocks.counters(t.name).reads - (readsBefore.get(t.name) ?? 0n));
    if (before[i] !== undefined) end.timeBeforeHealUs[t.name] = before[i]!;
    if (after[i] !== undefined) end.timeAfterHealUs[t.name] = after[i]!;
    const drift = clocks.state(t.name)?.driftMs.realtime;
    if (drift !== undefined) end.driftMs[t.name] = Math.round(drift);
  });
  return end;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
