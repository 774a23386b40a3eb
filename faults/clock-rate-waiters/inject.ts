import type { CriticalSection } from '../../nemesis/critical-sections.ts';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ClockFamily } from '../../nemesis/clock/clock-record.ts';
import { aimAt, strikeNow } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { clientTarget } from '../../nemesis/client-target.ts';
import type { ClientClockReading } from '../../nemesis/nemesis.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { clientClockUnreachable } from '../clock-rate-client/inject.ts';
import { clockSlopes } from '../clock-rate-client/slope.ts';

/** The most of the TTL a holder's acquire may have waited between its send and its grant for the strike to aim at it. */
export const PROMPT_GRANT_TTL_FRACTION = 0.1;

/**
 * Whether a section's lease start is pinned: its acquire was granted within PROMPT_GRANT_TTL_FRACTION of the TTL of
 * being sent. The story's "lease early" step can only count from the send (the history shows no later start), so a
 * holder whose acquire waited in contention leaves it unprovable: 10 shots on sql-lease missed 3 and then 5 that way.
 */
export function promptlyGranted(s: Pick<CriticalSection, 'acquireTime' | 'acquireSentTime'>, ttlMs: number): boolean {
  if (s.acquireTime === undefined || s.acquireSentTime === undefined) return false;
  return s.acquireTime - s.acquireSentTime <= PROMPT_GRANT_TTL_FRACTION * ttlMs * 1e6;
}

/** How long the strike waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** How long a waiter may take to answer a clock request. */
const READ_TIMEOUT_MS = 1_000;
/** The shortest harness time the slopes are measured over (clock-rate-client's: 1 ms steps of Date.now are < 1 %). */
const MIN_PROBE_MS = 500;
/** Every clock the waiters read, and (scope process) their waits: each waiter's whole process at the rate. */
const CLOCKS: readonly ClockFamily[] = ['realtime', 'monotonic'];
const SCOPE = 'process';
const WAITERS_STORY = "a waiter whose own clock ends the holder's lease early, and there is no lease to end";

/**
 * Run the clocks of every client but the holder — the waiters — at `--clock-rate` × real speed: once a client is
 * inside its critical section, every other client's wall and monotonic clocks and its waits through the LD_PRELOAD
 * shim, from where they are (no jump). A waiter that counts the holder's lease on its own clock — a lease row it
 * compares with its own `now` (sql-lease), a lease duration it waits out on a timer (dynamodb-lock-client) — sees it
 * end after TTL/r of real time at r > 1, and takes the lock from a holder whose lease still runs; a lock whose server
 * ends the lease (a Redis TTL) is untouched by it. It holds until another client was granted the holder's account or
 * the holder wrote — at most `--pause` ms — then runs the waiters' clocks at real speed again from where they got.
 *
 * The proof that the rate reached each waiter: the shim's read counter for it grew while the rate held, and its own
 * readings of its clocks (asked over its IPC channel, ≥ 500 ms apart) moved at the rate.
 */
export const clockRateWaiters: FaultExecutor<'clock-rate-waiters'> = {
  name: 'clock-rate-waiters',
  needs: { liveOps: true, shotMs: pastTheLease },
  refusal: (_servers, lock) => clientClockUnreachable(lock, 'clock-rate-waiters', WAITERS_STORY),
  unavailable: (env) =>
    clockRateWaiters.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run') ??
    (env.clients.readClock ? null : "this run's clients cannot be asked for their clocks") ??
    (env.clients.clients.length > 1 ? null : 'the run has one client: no waiter to run the clock of'),
  async start(ctx) {
    const { clients, config } = ctx;
    const clocks = ctx.clocks!;
    const rate = config.clockRate;
    const live = (slot: number) => !clients.clients[slot]?.paused && !clients.clients[slot]?.exited;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => live(s.slot) && promptlyGranted(s, config.ttlMs),
    );
    if (!section || ctx.aim.aborted) return null;
    const waiters = clients.clients.filter((c) => c.slot !== section.slot && live(c.slot));
    if (!waiters.length) return null;
    const names = waiters.map((w) => `p${w.process}`);
    const before = waiters.map((w) => clocks.counters(`client-${w.slot}`));
    for (const w of waiters) clocks.setRate(`client-${w.slot}`, { clocks: CLOCKS, rate, scope: SCOPE });
    const strike = strikeNow(ctx.journal);
    const first = await Promise.all(waiters.map((w) => clients.readClock!(w.slot, READ_TIMEOUT_MS)));
    const { process: holder, account } = section;
    const next = watchFor(
      ctx.journal,
      (op) =>
        isOtherGrant(op, holder, account, strike.atTime) ||
        (op.process === holder && op.f === 'write' && op.type !== 'invoke'),
    );
    return {
      targets: waiters.map((w) => clientTarget(w)),
      params: {
        slot: section.slot,
        account,
        readIndex: section.readIndex,
        rate,
        clocks: [...CLOCKS],
        scope: SCOPE,
        ttlMs: config.ttlMs,
        waiters: names,
        aim: aimAt(section, strike, { struck: names }),
      },
      holdMs: config.pauseMs,
      ready: next.seen,
      async heal() {
        next.stop();
        const earliest = Math.min(...first.map((r) => r?.answeredAtMs ?? Infinity));
        const waitMs = Number.isFinite(earliest) ? earliest + MIN_PROBE_MS - performance.now() : 0;
        if (waitMs > 0 && !ctx.interrupted.aborted)
          await sleepFor(waitMs, undefined, { signal: ctx.interrupted }).catch(() => {});
        const second = await Promise.all(
          waiters.map((w, i) => (first[i] ? clients.readClock!(w.slot, READ_TIMEOUT_MS) : null)),
        );
        return { params: healWaiters(clocks, waiters, names, first, second, before) };
      },
    };
  },
};

type WaiterClocks = NonNullable<Parameters<FaultExecutor<'clock-rate-waiters'>['start']>[0]['clocks']>;

/** Each waiter's slopes and counters, and its clocks back at real speed from where they got (never a step back). */
function healWaiters(
  clocks: WaiterClocks,
  ws: readonly { slot: number }[],
  keys: string[],
  a: (ClientClockReading | null)[],
  b: (ClientClockReading | null)[],
  counted: { reads: bigint; waits: bigint }[],
) {
  const end = {
    monoSlopes: {} as Record<string, number>,
    wallSlopes: {} as Record<string, number>,
    probeMs: {} as Record<string, number>,
    reads: {} as Record<string, number>,
    waits: {} as Record<string, number>,
    monoDriftMs: {} as Record<string, number>,
  };
  ws.forEach((w, i) => {
    const name = `client-${w.slot}`;
    const after = clocks.counters(name);
    const state = clocks.setRate(name, { clocks: CLOCKS, rate: 1, scope: 'wall' });
    const slopes = clockSlopes(a[i], b[i]);
    if (slopes) {
      end.monoSlopes[keys[i]] = slopes.monoSlope;
      end.wallSlopes[keys[i]] = slopes.wallSlope;
      end.probeMs[keys[i]] = slopes.probeMs;
    }
    end.reads[keys[i]] = Number(after.reads - counted[i].reads);
    end.waits[keys[i]] = Number(after.waits - counted[i].waits);
    end.monoDriftMs[keys[i]] = Math.round(state.driftMs.monotonic);
  });
  return end;
}
