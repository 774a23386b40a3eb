import { pick, type FaultExecutor } from '../fault.ts';

/** Throwaway (to show a new fault is one file and one catalogue row): SIGSTOP and at once SIGCONT a client. */
export const nudgeClient: FaultExecutor = {
  name: 'nudge-client',
  needs: {},
  refusal: () => null,
  unavailable: () => null,
  async start(ctx) {
    const candidates = ctx.clients.clients.filter((c) => !c.paused && !c.exited);
    if (!candidates.length || ctx.signal.aborted) return null;
    const c = pick(ctx.random, candidates);
    ctx.clients.signal(c.slot, 'SIGSTOP');
    const stopped = c.paused && !c.exited;
    ctx.clients.signal(c.slot, 'SIGCONT');
    return {
      targets: [`client p${c.process} (pid ${c.pid})`],
      holdMs: 100,
      async heal() {
        return { params: { hit: stopped }, note: stopped ? `nudged p${c.process}` : 'the client was gone' };
      },
    };
  },
};
