import { pick, type FaultExecutor } from '../../nemesis/fault.ts';
import { pastTheHold } from '../../nemesis/fault-needs.ts';
import { clientTarget, lockTreeStopped } from '../../nemesis/client-target.ts';

/** SIGSTOP a random client process for `--pause` ms, wherever it is in its loop. */
export const pauseClient: FaultExecutor<'pause-client'> = {
  name: 'pause-client',
  needs: { minRunMs: pastTheHold },
  refusal: () => null,
  unavailable: () => null,
  async start(ctx) {
    const { clients, config } = ctx;
    const candidates = clients.clients.filter((c) => !c.paused && !c.exited);
    if (!candidates.length || ctx.signal.aborted) return null;
    const c = pick(ctx.random, candidates);
    const target = clientTarget(c);
    clients.signal(c.slot, 'SIGSTOP');
    // The evidence that it acted: a client process still alive, now stopped (fault-hits.ts judges it).
    const stopped = c.paused && !c.exited;
    // And its lock process (a lock in another language) with it, every process of its tree.
    const lockEvidence = await lockTreeStopped(c);
    return {
      targets: [target],
      params: {
        durationMs: config.pauseMs,
        slot: c.slot,
        pid: c.pid,
        ...lockEvidence,
        stopped,
      },
      holdMs: config.pauseMs,
      async heal() {
        clients.signal(c.slot, 'SIGCONT');
      },
    };
  },
};
