import { aimAt, strikeNow, type Strike } from '../fault-aim.ts';
import type { FaultExecutor } from '../fault.ts';
import { pastTheHold } from '../fault-needs.ts';

/** How long pause-holder waits for some client to enter its critical section before giving up this turn. */
const AIM_TIMEOUT_MS = 10_000;

/**
 * Kleppmann's scenario, made deterministic: the next client to enter its critical section (a `read` ok: it
 * holds the lock and has read the balance) is SIGSTOPped from outside before it can write, for `--pause` ms
 * (default 1.5 × TTL, so its lease, TTL or session runs out meanwhile); then SIGCONT. It resumes believing it
 * still holds the lock and writes a balance computed from what it read before the pause.
 *
 * The SIGSTOP is sent synchronously from the journal listener that sees the read: the client is then still
 * sleeping its think time, so the stop always lands inside the critical section.
 */
export const pauseHolder: FaultExecutor = {
  name: 'pause-holder',
  needs: { minRunMs: pastTheHold },
  refusal: () => null,
  unavailable: () => null,
  async start(ctx) {
    const { clients, config } = ctx;
    let pid = 0;
    let strike: Strike = { atIndex: 0, atTime: 0 };
    const section = await ctx.sections.next(
      ctx.signal,
      AIM_TIMEOUT_MS,
      (s) => !clients.clients[s.slot]?.paused && !clients.clients[s.slot]?.exited,
      (s) => {
        pid = clients.clients[s.slot].pid;
        clients.signal(s.slot, 'SIGSTOP');
        strike = strikeNow(ctx.journal);
      },
    );
    if (!section) return null;
    return {
      targets: [`client p${section.process} (pid ${pid})`],
      params: {
        durationMs: config.pauseMs,
        ttlMs: config.ttlMs,
        slot: section.slot,
        account: section.account,
        readIndex: section.readIndex,
        aim: aimAt(section, strike),
      },
      holdMs: config.pauseMs,
      async heal() {
        clients.signal(section.slot, 'SIGCONT');
      },
    };
  },
};
