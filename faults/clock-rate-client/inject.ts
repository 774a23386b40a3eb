import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ClockFamily } from '../../nemesis/clock/clock-record.ts';
import { aimAt, strikeNow } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheLease } from '../../nemesis/fault-needs.ts';
import { watchFor } from '../../nemesis/story-watch.ts';
import { clientTarget } from '../../nemesis/client-target.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockRef } from '../../workloads/lock-ref.ts';
import { clockSlopes } from './slope.ts';
import type { RenewedBy } from './renewed-by.ts';

/** How long the strike waits for a client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;
/** How long a client may take to answer a clock request: its event loop runs slow, but an IPC message wakes it. */
const READ_TIMEOUT_MS = 1_000;
/**
 * The shortest harness time the slopes are measured over: `Date.now()` has 1 ms steps, so at r = 0.25 the wall clock
 * moves 125 ms in it and its slope is good to 1 % — well inside the ±5 % a hit allows.
 */
const MIN_PROBE_MS = 500;
/** Every clock the process reads, and (scope process) its waits: the whole process slowed, self-consistent. */
const CLOCKS: readonly ClockFamily[] = ['realtime', 'monotonic'];
const SCOPE = 'process';

/**
 * Run the holder's own clocks at `--clock-rate` × real speed: once a client is inside its critical section, its
 * wall and monotonic clocks and its waits (its timers: the watchdog's renewal, its think) through the LD_PRELOAD
 * shim, from where they are (no jump). At r < 1 a renewal due every TTL/3 of the client's time comes TTL/(3r) real
 * apart: at r < ⅓ the key expires before it, and another client can be granted the lock the holder still believes it
 * has. It holds until another client was granted the holder's account or the holder wrote — at most `--pause` ms —
 * then runs the clocks at real speed again from where they got: they stay behind by the drift, and never step.
 *
 * The client stamps its ops with its own monotonic clock: the harness maps them back to real time by the client's
 * clock record (harness/launch-clients.ts), so the history stays in real order through the shot and after it.
 *
 * The proof that the rate reached the process: the shim's read counter for the client grew while the rate held, and
 * the client's own readings of its clocks (asked over its IPC channel, ≥ 500 ms apart) moved at the rate.
 */
export const clockRateClient: FaultExecutor<'clock-rate-client'> = {
  name: 'clock-rate-client',
  needs: { liveOps: true, shotMs: pastTheLease },
  refusal: (_servers, lock) => clientClockUnreachable(lock),
  unavailable: (env) =>
    clockRateClient.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run') ??
    (env.clients.readClock ? null : "this run's clients cannot be asked for their clocks"),
  async start(ctx) {
    const { clients, config } = ctx;
    const clocks = ctx.clocks!;
    const rate = config.clockRate;
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited,
    );
    if (!section || ctx.aim.aborted || clients.clients[section.slot].exited) return null;
    const name = `client-${section.slot}`;
    const target = clientTarget({ ...clients.clients[section.slot], process: section.process });
    const before = clocks.counters(name);
    clocks.setRate(name, { clocks: CLOCKS, rate, scope: SCOPE });
    const strike = strikeNow(ctx.journal);
    const first = await clients.readClock!(section.slot, READ_TIMEOUT_MS);
    const { process: holder, account } = section;
    const next = watchFor(
      ctx.journal,
      (op) =>
        isOtherGrant(op, holder, account, strike.atTime) ||
        (op.process === holder && op.f === 'write' && op.type !== 'invoke'),
    );
    return {
      targets: [target],
      params: {
        slot: section.slot,
        account,
        readIndex: section.readIndex,
        rate,
        clocks: [...CLOCKS],
        scope: SCOPE,
        ttlMs: config.ttlMs,
        renewedBy: renewedBy(config.lock, config.watchdog),
        aim: aimAt(section, strike),
      },
      holdMs: config.pauseMs,
      ready: next.seen,
      async heal() {
        next.stop();
        const waitMs = first ? first.answeredAtMs + MIN_PROBE_MS - performance.now() : 0;
        if (waitMs > 0 && !ctx.interrupted.aborted)
          await sleepFor(waitMs, undefined, { signal: ctx.interrupted }).catch(() => {});
        const second = first && (await clients.readClock!(section.slot, READ_TIMEOUT_MS));
        const after = clocks.counters(name);
        // Back to real speed from where the clocks got: the monotonic clock must never step back, and the wall clock
        // keeps its drift as a real slow clock would.
        const state = clocks.setRate(name, { clocks: CLOCKS, rate: 1, scope: 'wall' });
        const slopes = clockSlopes(first, second ?? null);
        return {
          params: {
            ...(slopes ?? {}),
            reads: Number(after.reads - before.reads),
            waits: Number(after.waits - before.waits),
            monoDriftMs: Math.round(state.driftMs.monotonic),
            wallDriftMs: Math.round(state.driftMs.realtime),
          },
        };
      },
    };
  },
};

/**
 * Why clock-rate-client cannot run a `--lock`'s clients at a rate and prove it did, or null when it can. It proves a
 * shot by the client's own readings of its clocks, asked over the client's IPC channel (workloads/client.ts): a lock
 * that runs inside the Node client (fencepost's own, the npm libraries, a plugin) answers; a lock in another language
 * runs in a process of its own that inherits the shim but answers no clock request (the lock-client protocol has
 * none yet), so a shot there would prove nothing about the process that holds the lock. Go (etcd-go's client) is
 * refused outright: it reads the clock through the vDSO, never libc, so the shim moves neither its clocks nor its
 * timers. The JVM (curator) would be reached, its timed waits with it (shim.c), but it answers no clock request.
 */
export function clientClockUnreachable(
  lock: string,
  fault = 'clock-rate-client',
  story = 'a slowed holder outrunning its lease, and there is none to outrun',
): string | null {
  const ref = lockRef(lock);
  if (ref.kind === 'manifest' || ref.kind === 'exec')
    return `--lock=${lock} runs its lock in a process of its own, which answers no clock request (the lock-client protocol has none yet): ${fault} proves each shot with the client's own clock readings, and cannot read that process's`;
  if (ref.kind !== 'builtin') return null;
  const row = LOCK_ROWS[ref.name] as LockRow;
  if (row.place.from === 'Go')
    return `--lock=${lock}'s client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim moves neither its clocks nor its timers, so ${fault} cannot reach it`;
  if (row.foreign)
    return `--lock=${lock} runs its lock in a ${row.place.from} process of its own, which answers no clock request (the lock-client protocol has none yet): ${fault} proves each shot with the client's own clock readings, and cannot read that process's`;
  if (row.noLease)
    return `--lock=${lock} holds no lease that ends by time (${row.noLease}): ${fault.endsWith('s') ? `${fault}'` : `${fault}'s`} story is ${story}`;
  // A lock that renews itself (redis-semaphore) is not refused: its renewals are unseen, so its story's late-renewal
  // step is judged by what the history does show (faults/clock-rate-client/judge.ts), and a lost update counts as a
  // counterexample whether or not the story completed (matrix/cell-outcome.ts).
  return null;
}

/** What keeps the holder's lease alive for clock-rate-client's story (renewed-by.ts), from the run and the lock's row. */
export function renewedBy(lock: string, watchdog: boolean): RenewedBy {
  if (watchdog) return 'watchdog';
  const ref = lockRef(lock);
  if (ref.kind !== 'builtin') return 'unseen';
  const cell = (LOCK_ROWS[ref.name] as LockRow).remedies['pause-watchdog'];
  return cell.decided === 'construction' && cell.expect === 'refuse' ? 'unseen' : 'nothing';
}
