import { faultFacts } from '../faults/catalogue.ts';
import type { FaultWindow } from '../history/fault-windows.ts';
import type { BankWrite } from '../history/bank-view.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { LostUpdate } from './run-results.ts';

/** The key a lost update with no fault active is counted under. */
export const NO_FAULT = 'no fault';

/**
 * Which faults each lost update happened under, and how many lost updates per fault: the line a Redlock user came
 * for ("restart-empty 2 · clock 3 · pause-holder 3"), printed by the summary and the report's header from here.
 *
 * The rule is the report's story's (report/findings/lost-update.ts): a pause that stopped one of the two writers
 * inside its own critical section (its acquire → its write) is the cause; otherwise every fault active between the
 * first of the two sections' starts and the last of their writes. A lost update with neither is counted under
 * NO_FAULT (contention alone: a lock that is not one). A lost update may be counted under two faults active at once,
 * so the counts can add up to more than the lost updates.
 */
export function lostUpdateFaults(
  input: History | readonly Op[],
  lost: readonly LostUpdate[],
): { perLostUpdate: string[][]; byFault: Record<string, number> } {
  if (!lost.length) return { perLostUpdate: [], byFault: {} };
  const history = History.of(input);
  const byId = new Map<number, BankWrite>();
  for (const w of history.bank.writes) if (w.writeId !== null) byId.set(w.writeId, w);
  const endNs = history.endTime;
  const perLostUpdate = lost.map((l) => {
    const sections = [l.lost.writeId, l.overwrittenBy.writeId]
      .map((id) => byId.get(id))
      .filter((w): w is BankWrite => w !== undefined)
      .map((w) => sectionOf(history, w, endNs));
    const paused = sections.flatMap((s) =>
      history.faults.filter((f) => isPauseOf(f, s.process) && overlaps(f, s, endNs)),
    );
    if (paused.length) return names(paused);
    if (!sections.length) return [];
    const all = { from: Math.min(...sections.map((s) => s.from)), to: Math.max(...sections.map((s) => s.to)) };
    return names(history.faults.filter((f) => overlaps(f, all, endNs)));
  });
  const byFault: Record<string, number> = {};
  for (const faults of perLostUpdate)
    for (const f of faults.length ? faults : [NO_FAULT]) byFault[f] = (byFault[f] ?? 0) + 1;
  return { perLostUpdate, byFault };
}

interface Section {
  process: number;
  /** ns on the history's clock. */
  from: number;
  to: number;
}

/** A write's critical section: from its process's last ok acquire of the account before the write, to the write's end. */
function sectionOf(history: History, w: BankWrite, endNs: number): Section {
  let acquired: number | null = null;
  for (const a of history.bank.acquires) {
    const done = a.completion;
    if (a.invoke.process !== w.process || !done || done.type !== 'ok' || done.time > w.invokeTime) continue;
    const account = (a.invoke.value as { account?: unknown } | null)?.account;
    if (account !== undefined && account !== w.account) continue;
    if (acquired === null || done.time > acquired) acquired = done.time;
  }
  return { process: w.process, from: acquired ?? w.invokeTime, to: w.completeTime ?? endNs };
}

function isPauseOf(f: FaultWindow, process: number): boolean {
  return faultFacts(f.f)?.family === 'pause' && f.processes.includes(process);
}

function overlaps(f: FaultWindow, s: { from: number; to: number }, endNs: number): boolean {
  return f.start <= s.to && (f.end ?? endNs) >= s.from;
}

function names(windows: readonly FaultWindow[]): string[] {
  return [...new Set(windows.map((w) => w.f))];
}

/** The tally as it is shown, most lost first: `[['clock', 3], ['restart-empty', 2], ['no fault', 1]]`. */
export function lostUpdateTally(byFault: Readonly<Record<string, number>> | undefined): [string, number][] {
  return Object.entries(byFault ?? {}).sort(
    (a, b) => b[1] - a[1] || (a[0] === NO_FAULT ? 1 : b[0] === NO_FAULT ? -1 : 0),
  );
}

/** "clock 3 · restart-empty 2 · 1 with no fault active": the one wording of the tally (summary and report). */
export function lostUpdateTallyText(byFault: Readonly<Record<string, number>> | undefined): string {
  return lostUpdateTally(byFault)
    .map(([f, n]) => (f === NO_FAULT ? `${n} with no fault active` : `${f} ${n}`))
    .join(' · ');
}
