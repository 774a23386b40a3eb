import type { FaultWindow } from '../../history/fault-windows.ts';
import { movesClocks } from '../../faults/catalogue.ts';

/**
 * How far back a clock fault may have set a client's wall clock between `from` and `to` (ns on the history's
 * clock): 0 when no fault moved a client's clock then. Only clock-strobe moves clients' clocks (its targets name
 * `client-<slot>`, slots not processes, so it counts for every client); it swings between +offset and real time, so a
 * holder's own clock may run up to the offset behind where it was: its window, by its own clock, ends that much later.
 */
export function clientClockSlackNs(faults: readonly FaultWindow[], from: number, to: number): number {
  let slackMs = 0;
  for (const w of faults) {
    if (!movesClocks(w.f) || w.start > to || (w.end ?? Infinity) < from) continue;
    const clients = Object.entries(offsetsOf(w)).filter(([name]) => /^client\b|^client-|\bp\d+\b/.test(name));
    const named = w.targets.some((t) => /^client/.test(t));
    if (clients.length === 0 && !named) continue;
    const offsets = [...clients.map(([, ms]) => Math.abs(ms)), Math.abs(numberOr0(w.params.offsetMs))];
    slackMs = Math.max(slackMs, ...offsets);
  }
  return slackMs * 1e6;
}

function offsetsOf(w: FaultWindow): Record<string, number> {
  const o = w.params.offsets;
  if (!o || typeof o !== 'object') return {};
  return Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, numberOr0(v)]));
}

function numberOr0(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
