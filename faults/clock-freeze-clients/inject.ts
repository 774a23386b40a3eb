import type { FaultExecutor } from '../../nemesis/fault.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import type { LockRow } from '../../locks/lock-row.ts';
import { lockRef } from '../../workloads/lock-ref.ts';

/** How long a client may take to answer a clock request. */
const READ_TIMEOUT_MS = 1_000;
/** How often the freeze is set again when the clients' instants fell on two sides of a second (µs apart: rarely once). */
const TRIES = 3;

/**
 * Stand every client's wall clock still, at one instant: the shim's wall-clock rate 0 (scope wall: the monotonic
 * clock, the timers and the op stamps run on), set for each client one after the other within microseconds. Should
 * those microseconds straddle a second boundary, the freeze is undone and set again, so every client reads the same
 * whole second while it holds: two grants then read the same second every time, whatever the script does between them
 * (token-from-clock's story), where a free run needs them within one second by chance. Back to real time at heal
 * (the wall clock steps forward by the time it stood).
 */
export const clockFreezeClients: FaultExecutor<'clock-freeze-clients'> = {
  name: 'clock-freeze-clients',
  // The clock shim comes with `movesClocks` in its catalogue row.
  needs: {},
  refusal: (_servers, lock) => clientWallClockUnreachable(lock),
  unavailable: (env) =>
    clockFreezeClients.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run') ??
    (env.clients.readClock ? null : "this run's clients cannot be asked for their clocks"),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const live = ctx.clients.clients.filter((c) => !c.exited);
    const names = live.map((c) => `client-${c.slot}`);
    if (ctx.signal.aborted || !names.length) return null;
    // The proof the freeze reached each client: its own Date.now(), asked over its IPC channel.
    const readWalls = async () => {
      const walls = await Promise.all(live.map((c) => ctx.clients.readClock!(c.slot, READ_TIMEOUT_MS)));
      return Object.fromEntries(names.flatMap((n, i) => (walls[i] ? [[n, walls[i].wallMs]] : [])));
    };
    const before = Object.fromEntries(names.map((n) => [n, clocks.counters(n).reads]));
    let frozenAtMs = 0;
    for (let i = 0; i < TRIES; i++) {
      frozenAtMs = Date.now();
      for (const n of names) clocks.setRate(n, { clocks: ['realtime'], rate: 0, scope: 'wall' });
      if (Math.floor(Date.now() / 1000) === Math.floor(frozenAtMs / 1000)) break;
      for (const n of names) clocks.resetRates(n);
    }
    const wallAtStart = await readWalls();
    return {
      targets: names,
      params: { clients: names, frozenAtMs, wallAtStart },
      note: `wall clocks stand at ${new Date(frozenAtMs).toISOString()}`,
      holdMs: ctx.config.pauseMs,
      async heal() {
        const wallAtEnd = await readWalls();
        const reads: Record<string, number> = {};
        for (const n of names) {
          reads[n] = Number(clocks.counters(n).reads - before[n]);
          clocks.resetRates(n);
        }
        return { params: { wallAtEnd, reads } };
      },
    };
  },
};

/** Why the freeze cannot reach the clock a lock's client reads: a Go binary reads it through the vDSO, not libc. */
function clientWallClockUnreachable(lock: string): string | null {
  const ref = lockRef(lock);
  if (ref.kind === 'manifest' || ref.kind === 'exec')
    return `--lock=${lock} runs its lock in a process of its own: clock-freeze-clients freezes the fencepost client's clock, which is not where that lock reads its own`;
  if (ref.kind !== 'builtin') return null;
  const row = LOCK_ROWS[ref.name] as LockRow;
  if (row.place.from === 'Go')
    return `--lock=${lock}'s client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim cannot freeze it`;
  if (row.foreign)
    return `--lock=${lock} runs its lock in a ${row.place.from} process of its own: clock-freeze-clients freezes the fencepost client's clock, which is not where that lock reads its own`;
  return null;
}
