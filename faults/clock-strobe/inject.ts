import type { FaultExecutor } from '../../nemesis/fault.ts';
import { NO_TARGET_CLOCK } from '../../nemesis/fault-needs.ts';
import { lockServerKind, lockServers } from '../../nemesis/lock-servers.ts';
import { runTiming } from '../../common/run-timing.ts';
import { clockNote } from '../../nemesis/clock-note.ts';
import { shimCannotMove } from '../clock-shim.ts';

/**
 * Strobe the wall clocks of every lock server and every client: a square wave between +`--clock-offset` s and
 * real time, flipping every TTL/4 (at least 50 ms), for `--pause` ms, then reset. Expiry computed on a server
 * and validity computed on a client (Redlock's elapsed time) then disagree in both directions. The start record's
 * `offsets` are the "high" half of the wave; `periodMs` and `startsHigh` give every process's offset at any time.
 */
export const clockStrobe: FaultExecutor<'clock-strobe'> = {
  name: 'clock-strobe',
  // The clock shim comes with `movesClocks` in its catalogue row.
  needs: { onTarget: NO_TARGET_CLOCK },
  refusal: (servers, lock) => {
    const why = shimCannotMove(lockServerKind(servers));
    return why ? `--lock=${lock}'s lock is held by its ${lockServerKind(servers)} servers: ${why}` : null;
  },
  unavailable: (env) =>
    clockStrobe.refusal(env.servers, env.config.lock) ??
    (env.clocks ? null : 'the clock shim was not built for this run'),
  async start(ctx) {
    const clocks = ctx.clocks!;
    const offsetMs = ctx.config.clockOffsetS * 1000;
    const periodMs = runTiming(ctx.config).clockStrobePeriodMs;
    const servers = lockServers(ctx.servers, ctx.cluster, ctx.pair).map((s) => s.node);
    const names = [...servers.map((s) => s.name), ...ctx.clients.clients.map((c) => `client-${c.slot}`)];
    if (ctx.signal.aborted) return null;
    let high = true;
    const apply = () => {
      for (const n of names) clocks.set(n, high ? offsetMs : 0);
    };
    apply();
    const timer = setInterval(() => {
      high = !high;
      apply();
    }, periodMs);
    const note = clockNote(servers.map((s) => s.kind));
    if (note) ctx.log(`fencepost: nemesis: clock-strobe: ${note}`);
    return {
      targets: names,
      params: {
        offsetMs,
        periodMs,
        startsHigh: true,
        durationMs: ctx.config.pauseMs,
        // The lock servers whose clocks the shim does move: the evidence fault-hits.ts judges (none: a miss).
        moved: servers.filter((s) => shimCannotMove(s.kind) === null).map((s) => s.name),
        offsets: Object.fromEntries(names.map((n) => [n, offsetMs])),
      },
      note,
      holdMs: ctx.config.pauseMs,
      async heal() {
        clearInterval(timer);
        for (const n of names) clocks.set(n, 0);
        return { params: { offsets: Object.fromEntries(names.map((n) => [n, 0])) } };
      },
    };
  },
};
