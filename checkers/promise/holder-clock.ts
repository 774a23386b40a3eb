import type { FaultWindow } from '../../history/fault-windows.ts';
import { faultFacts, movesClocks } from '../../faults/catalogue.ts';

/**
 * How far behind a clock fault may have left a client's own clock over `from`…`to` (ns on the history's clock),
 * against the time that passed: 0 when no fault moved a client's clock then. A holder measures its validity on its
 * own clock, so its window, by that clock, ends this much later than by the history's.
 * - clock-strobe moves every client's wall clock (its targets name `client-<slot>`, slots not processes, so it counts
 *   for every client); it swings between +offset and real time, so a holder's own clock may run up to the offset
 *   behind where it was.
 * - clock-rate-client runs one holder's clocks at r < 1 (its targets name the process, `client p3`): over the part
 *   of `from`…`to` the rate held, the holder's clock fell behind by (1 − r) of it. Only that process's (`process`)
 *   clock; none when the rate was 1 or faster.
 */
export function clientClockSlackNs(faults: readonly FaultWindow[], from: number, to: number, process?: number): number {
  let slackNs = 0;
  for (const w of faults) {
    if (!movesClocks(w.f) || w.start > to || (w.end ?? Infinity) < from) continue;
    if (faultFacts(w.f)?.atClockRate && w.processes.length) {
      slackNs = Math.max(slackNs, rateSlackNs(w, from, to, process));
      continue;
    }
    const clients = Object.entries(offsetsOf(w)).filter(([name]) => /^client\b|^client-|\bp\d+\b/.test(name));
    const named = w.targets.some((t) => /^client/.test(t));
    if (clients.length === 0 && !named) continue;
    const offsets = [...clients.map(([, ms]) => Math.abs(ms)), Math.abs(numberOr0(w.params.offsetMs))];
    slackNs = Math.max(slackNs, ...offsets.map((ms) => ms * 1e6));
  }
  return slackNs;
}

/** What a rate below 1 on `process`'s clocks took off its own time over `from`…`to`: (1 − r) × the overlap, ns. */
function rateSlackNs(w: FaultWindow, from: number, to: number, process: number | undefined): number {
  const rate = w.params.rate;
  if (typeof rate !== 'number' || !(rate < 1)) return 0;
  if (process !== undefined && !w.processes.includes(process)) return 0;
  const overlap = Math.min(to, w.end ?? to) - Math.max(from, w.start);
  return overlap > 0 ? (1 - Math.max(0, rate)) * overlap : 0;
}

function offsetsOf(w: FaultWindow): Record<string, number> {
  const o = w.params.offsets;
  if (!o || typeof o !== 'object') return {};
  return Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, numberOr0(v)]));
}

function numberOr0(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
