import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ClusterNode } from '../../cluster/node.ts';
import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { FaultAim } from '../fault-aim.ts';
import type { FaultContext, FaultExecutor } from '../../nemesis/fault.ts';
import {
  everyRedisMaster,
  leaderOf,
  lockServerKind,
  lockServers,
  type LockServerCounts,
} from '../../nemesis/lock-servers.ts';
import { nextKeyHolders } from '../../nemesis/key-holders.ts';
import { NO_TARGET_CLOCK, pastTheSection } from '../../nemesis/fault-needs.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { serverClockProbe, type ServerClockProbe, type ServerClockSample } from '../../nemesis/server-clock-probe.ts';
import { shimCannotMove } from '../clock-shim.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockRef } from '../../workloads/lock-ref.ts';

/** How long the strike waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** The shortest harness time a slope is measured over: the two reads' round trips are then under 1 % of it. */
const MIN_PROBE_MS = 300;

/** The nodes struck, each with its probe, the section aimed at, and what the start record says of them. */
interface Struck {
  targets: { node: ClusterNode; probe: ServerClockProbe }[];
  aim: FaultAim;
  evidence: Record<string, unknown>;
}

/**
 * Run the clock of the servers holding the lock at `--clock-rate` × real speed (through the LD_PRELOAD shim: a new
 * segment starts where the clock is, so it never jumps), aimed like clock: once a client is inside its critical
 * section — on Redis, as many of the nodes holding its key as it takes for another client to win (Redis computes a
 * key's expiry from its wall clock: at r = 2 a 2 s TTL lasts 1 s real); on ZooKeeper, the leader, whose session
 * tracker expires sessions by its elapsed-time clock (at r = 2 a session unpinged for half its timeout of real time is
 * gone); on Postgres, the server, for a lease stamped and compared on its `now()`. It holds until another client was
 * granted the holder's account or the holder wrote — at most `--pause` ms — then runs the clock at real speed again
 * from where it got: the node's clock stays ahead by the drift it gathered and never steps back.
 *
 * The proof that the rate reached the process, per node: the shim's read counter grew while the rate held, and the
 * clock that matters, read from outside (nemesis/server-clock-probe.ts), moved at the rate on the harness's own clock (two reads ≥
 * 300 ms apart).
 */
export const clockRate: FaultExecutor<'clock-rate'> = {
  name: 'clock-rate',
  needs: { liveOps: true, shotMs: pastTheSection, onTarget: NO_TARGET_CLOCK },
  refusal: clockRateRefusal,
  unavailable: (env) =>
    clockRate.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run'),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const rate = ctx.config.clockRate;
    const readsBefore = new Map<string, bigint>();
    const strike = (t: Struck['targets']) => {
      for (const { node, probe } of t) {
        readsBefore.set(node.name, clocks.counters(node.name).reads);
        clocks.setRate(node.name, { clocks: probe.clocks, rate, scope: probe.scope });
      }
    };
    const struck = await (everyRedisMaster(ctx.cluster, ctx.pair).length
      ? strikeKeyHolders(ctx, strike)
      : strikeLockServer(ctx, strike));
    if (!struck) return null;
    const { targets, aim } = struck;
    const firstReads = await Promise.all(targets.map((t) => t.probe.first()));
    const { process: holder, account, atTime } = aim;
    const next = watchFor(
      ctx.journal,
      (op) =>
        isOtherGrant(op, holder, account, atTime ?? 0) ||
        (op.process === holder && op.f === 'write' && op.type !== 'invoke'),
    );
    const first = targets[0].probe;
    return {
      targets: targets.map((t) => t.node.name),
      params: {
        rate,
        ttlMs: ctx.config.ttlMs,
        clocks: [...first.clocks],
        scope: first.scope,
        ...struck.evidence,
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

/** Redis: the next section whose key sits on the nodes to break, and those nodes struck. */
async function strikeKeyHolders(ctx: FaultContext, strike: (t: Struck['targets']) => void): Promise<Struck | null> {
  const masters = everyRedisMaster(ctx.cluster, ctx.pair).map((m) => m.node);
  const { found } = await nextKeyHolders(ctx, masters, performance.now() + AIM_TIMEOUT_MS);
  if (!found || ctx.aim.aborted) return null;
  const targets = found.victims.map((node) => ({ node, probe: serverClockProbe(node, ctx.redisKeys)! }));
  strike(targets);
  return {
    targets,
    aim: aimAt(found.section, strikeNow(ctx.journal), {
      struck: targets.map((t) => t.node.name),
      keysOn: found.keysOn,
      needed: found.needed,
    }),
    evidence: { keys: found.keys, holder: `p${found.section.process}`, holding: found.holding.map((n) => n.name) },
  };
}

/**
 * ZooKeeper and Postgres: every member stores every key, so the node whose clock decides is the leader (ZooKeeper's
 * tracks the sessions) or the one server (Postgres). Found first, then struck synchronously as a client enters its
 * critical section.
 */
async function strikeLockServer(ctx: FaultContext, strike: (t: Struck['targets']) => void): Promise<Struck | null> {
  const deadline = performance.now() + AIM_TIMEOUT_MS;
  const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair);
  const named = ctx.only ? servers.find((s) => ctx.only!.has(s.node.name)) : undefined;
  const node = (named ?? (await leaderOf(servers)) ?? servers[0])?.node;
  const probe = node && serverClockProbe(node, ctx.redisKeys);
  if (!node || !probe) return null;
  const targets = [{ node, probe }];
  let at: Strike = { atIndex: 0, atTime: 0 };
  const section = await ctx.sections.next(
    ctx.aim,
    deadline - performance.now(),
    (s) => !ctx.clients.clients[s.slot]?.paused,
    () => {
      strike(targets);
      at = strikeNow(ctx.journal);
    },
  );
  if (!section) return null;
  return { targets, aim: aimAt(section, at, { struck: [node.name] }), evidence: { holder: `p${section.process}` } };
}

/** Second probe reads (≥ MIN_PROBE_MS after the first), the rate back to 1, and the server's time around that change. */
async function measureAndHeal(
  ctx: FaultContext,
  targets: Struck['targets'],
  firstReads: (ServerClockSample | undefined)[],
  readsBefore: Map<string, bigint>,
) {
  const clocks = ctx.clocks!;
  const earliest = Math.min(...firstReads.map((s) => s?.atMs ?? Infinity));
  const waitMs = Number.isFinite(earliest) ? earliest + MIN_PROBE_MS - performance.now() : 0;
  if (waitMs > 0 && !ctx.interrupted.aborted)
    await sleepFor(waitMs, undefined, { signal: ctx.interrupted }).catch(() => {});
  const secondReads = await Promise.all(targets.map((t) => t.probe.next()));
  const before = await Promise.all(targets.map((t) => t.probe.nowUs()));
  for (const { node, probe } of targets) clocks.setRate(node.name, { clocks: probe.clocks, rate: 1, scope: 'wall' });
  const after = await Promise.all(targets.map((t) => t.probe.nowUs()));
  const end = {
    slopes: {} as Record<string, number>,
    probeMs: {} as Record<string, number>,
    reads: {} as Record<string, number>,
    timeBeforeHealUs: {} as Record<string, number>,
    timeAfterHealUs: {} as Record<string, number>,
    driftMs: {} as Record<string, number>,
  };
  targets.forEach(({ node }, i) => {
    const [a, b] = [firstReads[i], secondReads[i]];
    if (a && b && b.atMs > a.atMs) {
      end.slopes[node.name] = round4((b.ms - a.ms) / (b.atMs - a.atMs));
      end.probeMs[node.name] = Math.round(b.atMs - a.atMs);
    }
    end.reads[node.name] = Number(clocks.counters(node.name).reads - (readsBefore.get(node.name) ?? 0n));
    if (before[i] !== undefined) end.timeBeforeHealUs[node.name] = before[i]!;
    if (after[i] !== undefined) end.timeAfterHealUs[node.name] = after[i]!;
    const drift = clocks.state(node.name)?.driftMs.realtime;
    if (drift !== undefined) end.driftMs[node.name] = Math.round(drift);
  });
  return end;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Why clock-rate cannot run the clock of a `--lock`'s servers at a rate and prove it did, or null when it can. Redis
 * (a probe key's PTTL) and ZooKeeper (`mntr`'s uptime, the clock its sessions expire by) are probed; etcd is a Go
 * binary the shim cannot move. Postgres keeps every run's accounts, so every lock seems to sit on it: only a lock
 * whose lease runs on the server's clock (its row's `databaseClock`: sql-lease-dbtime) gives the rate anything to act
 * on — an advisory lock ends with its session, a client-time lease by its clients' clocks, whatever the server's runs.
 */
export function clockRateRefusal(servers: LockServerCounts, lock: string): string | null {
  const kind = lockServerKind(servers);
  if (kind === 'redis' || kind === 'zk') return null;
  if (kind === 'etcd') return `--lock=${lock}'s lock is held by its etcd servers: ${shimCannotMove('etcd')}`;
  const ref = lockRef(lock);
  const row = ref.kind === 'builtin' ? (LOCK_ROWS[ref.name] as LockRow) : undefined;
  if (row?.databaseClock) return null;
  if (row && row.place.store !== 'Postgres' && !row.noLease)
    return `--lock=${lock} keeps its lock in ${row.place.store}: clock-rate has no probe for its server's clock yet`;
  const why = row
    ? (row.noLease ?? "its lease is stamped and compared on its clients' clocks")
    : 'a lock of your own states no lease on the database clock';
  return `--lock=${lock}'s lock times no lease by the Postgres server's clock (${why}): clock-rate runs that clock at a rate, which plays no part in it`;
}
