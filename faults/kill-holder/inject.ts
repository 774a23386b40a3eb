import { aimAt, strikeNow, type Strike } from '../../nemesis/fault-aim.ts';
import type { FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheHold, pastTheLease } from '../../nemesis/fault-needs.ts';
import { isOtherGrant } from '../judging/story-steps.ts';
import { watchFor } from '../../nemesis/story-watch.ts';

/** How long kill-holder waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * The holder's death: the next client to enter its critical section (a `read` ok: it holds the lock and has read
 * the balance) is SIGKILLed before it can write or release, so its lock is freed by expiry alone (the TTL, the
 * lease, the session timeout). The pool completes its open ops as `info` and restarts the slot under a new process
 * id, as after any client death (harness/client-pool.ts), without counting it toward the slot's give-up limit.
 * What it measures is liveness, not safety: how long the dead holder's lock kept the others out (the liveness
 * checker's lockout), and a lock that never expires leaves every other client waiting to the end of the run (a
 * stall: the finding). The fault's window lasts until another client took the lock (at most `--pause`, default
 * 4 × TTL): the story's last step (faults/kill-holder/judge.ts).
 *
 * The SIGKILL is sent synchronously from the journal listener that sees the read, as pause-holder's SIGSTOP, so
 * it always lands inside the critical section.
 */
export const killHolder: FaultExecutor<'kill-holder'> = {
  name: 'kill-holder',
  // The others must outlive the holder's TTL to show whether its lock was freed (--pause defaults to 1.5 × TTL).
  needs: { liveOps: true, minRunMs: pastTheHold, shotMs: pastTheLease },
  refusal: () => null,
  unavailable: () => null,
  async start(ctx) {
    const { clients, config } = ctx;
    let pid = 0;
    let strike: Strike = { atIndex: 0, atTime: 0 };
    const section = await ctx.sections.next(
      ctx.aim,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited,
      (s) => {
        pid = clients.clients[s.slot].pid;
        clients.killOnPurpose(s.slot);
        strike = strikeNow(ctx.journal);
      },
    );
    if (!section) return null;
    // The story's last step: another client takes the dead holder's account once its lock expired.
    const freed = watchFor(ctx.journal, (op) => isOtherGrant(op, section.process, section.account, strike.atTime));
    return {
      targets: [`client p${section.process} (pid ${pid})`],
      params: {
        ttlMs: config.ttlMs,
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        signal: 'SIGKILL',
        aim: aimAt(section, strike),
      },
      // Until another client took the lock (at most --pause, default 4 × TTL): the next fault then finds the lock free.
      holdMs: config.storyWaitMs,
      ready: freed.seen,
      // Nothing to undo: the pool restarts the slot by itself; the lock is the lock's to free.
      async heal() {
        freed.stop();
        return {
          note: `the slot restarts as after any client exit; its lock was left to expire (TTL ${config.ttlMs} ms)`,
        };
      },
    };
  },
};
