import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { runTiming } from '../../common/run-timing.ts';
import type { CriticalSection } from '../../nemesis/critical-sections.ts';
import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheHold, pastTheLease } from '../../nemesis/fault-needs.ts';
import { OtherClientWrite } from '../judging/story-steps.ts';
import { waitUntilAged, watchFor } from '../../nemesis/story-watch.ts';
import { clientTarget, lockTreeStopped } from '../../nemesis/client-target.ts';
import type { ClientProcess } from '../../nemesis/nemesis.ts';

/** How long pause-holder waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * How much sooner the holder's think timer must fall due than its watchdog's next renewal for the write to run
 * first after SIGCONT: timers have millisecond resolution and are armed a little after the ops they follow are
 * stamped.
 */
export const WRITE_FIRST_MARGIN_MS = 20;

/**
 * With --watchdog, the GC-pause story is that the resumed holder's write is the next thing it does, before its
 * renewal timer can notice the lease is gone. After a pause longer than both timers, Node runs the overdue ones in
 * the order they fell due: the think sleep (armed at the read) before the renewal (armed at the acquire, then at
 * each renewal, `watchdogEveryMs` apart) means the write is sent first; the other way round the overdue renewal
 * goes out first and, when its answer beats the write (a think timer armed after the resume), the write is skipped
 * as lock-lost and the cell flips to "safe" by luck. So the shot waits for a section whose think ends at least
 * WRITE_FIRST_MARGIN_MS before the next renewal: how many ms sooner it ends, or null when it does not.
 * Without a watchdog there is no renewal to race: always aimable (Infinity). Nor when the think is longer than the
 * renewal period (less the margin): then every section renews inside itself, no write can come due before a
 * renewal, the renewal-first order is the scenario rather than luck (the broken gallery's renew-without-owner,
 * `--ttl=300 --think=700`, is exactly that: the resumed holder's renewal must decide), and waiting for a section
 * that cannot exist would leave the fault never firing. Pure.
 */
export function writeLeadMs(
  s: Pick<CriticalSection, 'readTime' | 'acquireTime' | 'lastRenewTime'>,
  config: { readonly watchdog: boolean; readonly thinkMs: number; readonly ttlMs: number },
): number | null {
  if (!config.watchdog) return Infinity;
  if (config.thinkMs + WRITE_FIRST_MARGIN_MS > runTiming(config).watchdogEveryMs) return Infinity;
  const armedAt = s.lastRenewTime ?? s.acquireTime;
  if (armedAt === undefined) return null;
  const nextRenewalMs = armedAt / 1e6 + runTiming(config).watchdogEveryMs;
  const thinkEndsMs = s.readTime / 1e6 + config.thinkMs;
  const lead = nextRenewalMs - thinkEndsMs;
  return lead >= WRITE_FIRST_MARGIN_MS ? Math.round(lead) : null;
}

/** The record's words for a section's lead: the ms, or that the holder renews inside every section. */
const leadParams = (lead: number | null) =>
  lead === Infinity ? { renewsInsideSection: true as const } : { writeLeadMs: lead };

/**
 * Resolves once the client's main thread is back in its event loop (`/proc/<pid>/wchan`: epoll_wait), or after
 * `budgetMs`: whether it got there (false too when /proc cannot tell, e.g. a process in another pid namespace).
 * The read's `ok` is sent before the client arms its think timer; a SIGSTOP that lands in between has the timer
 * armed only after SIGCONT — 100 ms after the overdue renewal, whose answer (lock-lost) then skips the write. Once
 * the thread waits in epoll, everything that follows the read up to the think sleep has run.
 */
async function armedItsThink(pid: number, budgetMs: number): Promise<boolean> {
  const until = performance.now() + budgetMs;
  for (;;) {
    let wchan: string;
    try {
      wchan = fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
    } catch {
      return false;
    }
    if (wchan.includes('epoll')) return true;
    if (performance.now() >= until) return false;
    await sleep(1);
  }
}

/**
 * Kleppmann's scenario, made deterministic: the next client to enter its critical section (a `read` ok: it
 * holds the lock and has read the balance) is SIGSTOPped from outside before it can write, and resumed (SIGCONT)
 * once its story has taken the step it waits for: at least a TTL went by (its lease, TTL or session ran out) and
 * another client acquired the same account and committed a write — at most `--pause` ms (default 4 × TTL). It
 * resumes believing it still holds the lock and writes a balance computed from what it read before the pause.
 * Waiting for the other client's write rather than a fixed time is what makes the story complete on a busy machine
 * too (a ZooKeeper session expires a little after its timeout, the next holder then has to acquire and write): a
 * pause that ends before that tested nothing (faults/pause-holder/judge.ts).
 *
 * The section is spotted from the journal listener that sees the read, while the client still sleeps its think
 * time; the stop follows once the holder has armed its think timer (armedItsThink, at most a quarter of --think
 * later), so it lands inside the critical section with the write due first. With --watchdog it strikes only a section
 * whose write comes due before the holder's next renewal (writeLeadMs).
 */
export const pauseHolder: FaultExecutor<'pause-holder'> = {
  name: 'pause-holder',
  needs: { liveOps: true, minRunMs: pastTheHold, shotMs: pastTheLease },
  refusal: () => null,
  unavailable: () => null,
  async start(ctx) {
    const { clients, config } = ctx;
    let pid = 0;
    let target = '';
    let lock: Pick<ClientProcess, 'lockProcess' | 'lockTree'> = {};
    let strike: Strike = { atIndex: 0, atTime: 0 };
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited && writeLeadMs(s, config) !== null,
      (s) => {
        pid = clients.clients[s.slot].pid;
        target = clientTarget({ ...clients.clients[s.slot], process: s.process });
        lock = { ...clients.clients[s.slot] };
        // Stopped below, once its think timer is armed.
      },
    );
    if (!section) return null;
    // Always once the holder armed its think timer: not only the harness's watchdog renews on a timer, so do the
    // libraries that keep their lock alive themselves (redis-semaphore's refresh, redlock using()'s extension). Stopped
    // before it armed the timer, the holder arms it only after SIGCONT, and the library's overdue renewal goes first
    // and tells it the lock is gone (redlock-sesame, seed 249707402: its write skipped as lock-lost 112 ms after the
    // resume) — the GC-pause story is the pause after the check, with the write due first.
    const waitedForThink = await armedItsThink(pid, config.thinkMs / 4);
    const c = clients.clients[section.slot];
    if (c.exited || ctx.aim.aborted) return null;
    clients.signal(section.slot, 'SIGSTOP');
    strike = strikeNow(ctx.journal);
    // The story's next step, watched from the strike on: another client's grant and committed write.
    const other = new OtherClientWrite(section.process, section.account, strike.atTime);
    const watch = watchFor(ctx.journal, (op) => other.observe(op));
    // A TTL from the strike on the history's clock, the one the judge measures "stopped ≥ the TTL" by.
    const leaseRanOut = waitUntilAged(
      () => ctx.journal.sinceOrigin(process.hrtime.bigint()),
      strike.atTime,
      config.ttlMs,
      ctx.signal,
    );
    const lockEvidence = await lockTreeStopped(lock);
    return {
      targets: [target],
      params: {
        // The longest it waits for its story; the end record says how long it held and why it ended.
        maxMs: config.storyWaitMs,
        // The client's lock process (a lock in another language), its whole tree stopped with it.
        ...lockEvidence,
        ttlMs: config.ttlMs,
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        // With --watchdog: how many ms before its next renewal the holder's write was due (see writeLeadMs).
        ...(config.watchdog ? leadParams(writeLeadMs(section, config)) : {}),
        thinkArmed: waitedForThink,
        aim: aimAt(section, strike),
      },
      holdMs: config.storyWaitMs,
      ready: Promise.all([leaseRanOut, watch.seen]),
      async heal() {
        clients.signal(section.slot, 'SIGCONT');
        watch.stop();
      },
    };
  },
};
