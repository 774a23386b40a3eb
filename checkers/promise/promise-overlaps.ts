import type { BankWrite } from '../../history/bank-view.ts';
import type { FaultWindow } from '../../history/fault-windows.ts';
import { faultFacts } from '../../faults/catalogue.ts';
import { clientClockSlackNs } from './holder-clock.ts';
import { faultsDuring, type PromiseHold, type PromiseMutant, type Window } from './promise-windows.ts';

/** What the classification needs of the lock's lease beyond each hold's window. */
export interface LeaseFacts {
  /** The lease is a session refreshed by heartbeats outside the history (ZooKeeper): it lapses only when they stop. */
  heartbeats: boolean;
}

/**
 * Whose fault an overlap is:
 * - `broke`: the two promise windows overlap on the history's clock — the lock (or its server) granted inside a
 *   lease it had promised; INVALID even where fencing kept the data safe.
 * - `outlived`: the windows are apart, and a holder went on past its own window while the other held (a pause, a
 *   delayed write): the holder's doing, what fencing is for.
 * - `own-clock`: as outlived, but inside its window by its own clock, which a clock fault set back or slowed.
 * - `unknown`: a hold's promise is not known (no lease, an old record): never blamed on anyone.
 */
export type PromiseClass = 'broke' | 'outlived' | 'own-clock' | 'unknown';

/** A hold as an overlap shows it: the clients' view (acquired → released) and the promise (window), ns. */
export interface PromiseSide {
  process: number;
  acquireIndex: number;
  invokedAt: number;
  acquiredAt: number;
  releasedAt: number;
  window: Window | null;
  /** Set when a clock fault set the holder's clock back or slowed it: the latest instant its own clock still showed it inside. */
  ownWindow?: Window;
  unknownWhy?: string;
}

/** A write its holder sent, or that committed, after its window ended: the stale write the overlap is about. */
export interface LateWrite {
  process: number;
  invokeIndex: number;
  /** The ledger row it became; null when it did not commit (refused as stale, failed, unknown). */
  writeId: number | null;
}

export interface PromiseOverlap {
  account: number;
  class: PromiseClass;
  /** a acquired first. */
  a: PromiseSide;
  b: PromiseSide;
  /** outlived / own-clock: the holder(s) that went on past their window. */
  late: number[];
  /** The faults active then: for broke, between the first grant and the second; for outlived, on the late holder. */
  causes: string[];
  lateWrites: LateWrite[];
  /** The overlap in one sentence. */
  why: string;
}

/** Every pair of holds of one account that overlap, in the clients' view or in their promises, classified. */
export function classifyOverlaps(
  holds: readonly PromiseHold[],
  writes: readonly BankWrite[],
  faults: readonly FaultWindow[],
  mutant: PromiseMutant = {},
  lease: LeaseFacts = { heartbeats: false },
): PromiseOverlap[] {
  const byAccount = new Map<number, PromiseHold[]>();
  for (const h of holds) {
    const list = byAccount.get(h.account);
    if (list) list.push(h);
    else byAccount.set(h.account, [h]);
  }
  const out: PromiseOverlap[] = [];
  for (const [account, list] of [...byAccount].sort((x, y) => x[0] - y[0])) {
    list.sort((x, y) => x.acquiredAt - y.acquiredAt || x.acquireIndex - y.acquireIndex);
    // Every pair, not only neighbours: a long hold can overlap a later one with others between (kahuna's gap).
    for (let i = 0; i < list.length; i++) {
      // Holds start in order: once one starts after both this hold's view and its window ended, so do the rest.
      const over = Math.max(list[i].releasedAt, list[i].window?.end ?? -Infinity);
      for (let j = i + 1; j < (mutant.adjacentOnly ? Math.min(i + 2, list.length) : list.length); j++) {
        if (list[j].acquiredAt >= over) break;
        if (list[i].process === list[j].process) continue;
        const o = classifyPair(account, list[i], list[j], writes, faults, lease.heartbeats);
        if (o) out.push(o);
      }
    }
  }
  return out;
}

function overlapOf(x: Window | null, y: Window | null): Window | null {
  if (!x || !y) return null;
  const w = { start: Math.max(x.start, y.start), end: Math.min(x.end, y.end) };
  return w.start < w.end ? w : null;
}

/** b's grant, somewhere in [its invoke, its completion], if that span lies inside `window`. */
function grantedInside(b: PromiseHold, window: Window | null): Window | null {
  return window && b.invokedAt >= window.start && b.acquiredAt < window.end
    ? { start: b.invokedAt, end: b.acquiredAt }
    : null;
}

function classifyPair(
  account: number,
  a: PromiseHold,
  b: PromiseHold,
  writes: readonly BankWrite[],
  faults: readonly FaultWindow[],
  heartbeats: boolean,
): PromiseOverlap | null {
  const believed = overlapOf({ start: a.acquiredAt, end: a.releasedAt }, { start: b.acquiredAt, end: b.releasedAt });
  // Both leases live at one instant (the windows overlap), or b granted — after its invoke, by its completion — while
  // a's promise ran: either way the lock had two live grants at once. b's own window may be empty (it waited longer
  // than a lease for the grant), which is why the second is asked.
  const promised = overlapOf(a.window, b.window) ?? grantedInside(b, a.window);
  if (!believed && !promised) return null;
  const base = { account, a: side(a, faults), b: side(b, faults), late: [], causes: [], lateWrites: [] };
  if (promised) {
    const causes = names(faultsDuring(faults, a.acquiredAt, b.acquiredAt));
    return {
      ...base,
      class: 'broke',
      causes,
      why: `p${b.process} was granted account ${account} at ${ms(b.acquiredAt)} inside p${a.process}'s promise (to ${ms(a.window!.end)})${under(causes)}: the lock broke its promise`,
    };
  }
  const unknownWhy = a.unknownWhy ?? b.unknownWhy;
  if (unknownWhy !== undefined || !believed)
    return {
      ...base,
      class: 'unknown',
      why: `p${a.process} and p${b.process} overlapped; whose fault is unknown: ${unknownWhy}`,
    };
  const late = [a, b].map((h) => lateness(h, believed, writes, faults, heartbeats)).filter((l) => l !== null);
  const blamed = late.filter((l) => l.cls !== 'ambiguous');
  if (blamed.length === 0) {
    const why = late.length
      ? `p${late[0].process} went on past the earliest end of its lease but not past the latest (when the lock started it is not in the history)`
      : 'neither left its window';
    return {
      ...base,
      class: 'unknown',
      why: `p${a.process} and p${b.process} overlapped; whose fault is unknown: ${why}`,
    };
  }
  const cls = blamed.some((l) => l.cls === 'outlived') ? 'outlived' : 'own-clock';
  const causes = [...new Set(blamed.flatMap((l) => l.causes))];
  const who = blamed.map((l) => `p${l.process}`).join(' and ');
  return {
    ...base,
    class: cls,
    late: blamed.map((l) => l.process),
    causes,
    lateWrites: blamed.flatMap((l) => l.writes),
    why:
      cls === 'outlived'
        ? `${who} went on past its promise while the other held${under(causes)}: it outlived its lease`
        : `${who} went on past its promise by the history's clock but not by its own, which a clock fault set back or slowed${under(causes)}`,
  };
}

interface Lateness {
  process: number;
  /** ambiguous: past the window's end, but not past the latest end its lease can have had. */
  cls: 'outlived' | 'own-clock' | 'ambiguous';
  causes: string[];
  writes: LateWrite[];
}

/** Whether `h` held on past its window into `believed` (its overlap with the other's hold), and what it did then. */
function lateness(
  h: PromiseHold,
  believed: Window,
  writes: readonly BankWrite[],
  faults: readonly FaultWindow[],
  heartbeats: boolean,
): Lateness | null {
  const end = h.window!.end;
  if (Math.max(believed.start, end) >= believed.end) return null;
  const stale = writes.filter(
    (w) =>
      w.process === h.process &&
      w.account === h.account &&
      w.invokeIndex > h.acquireIndex &&
      w.invokeIndex <= h.endIndex &&
      actedAt(w) > end,
  );
  const lastAct = Math.max(believed.end, ...stale.map(actedAt));
  const writesLate = stale.map((w) => ({ process: w.process, invokeIndex: w.invokeIndex, writeId: w.writeId }));
  if (lastAct <= (h.latestEnd ?? end)) return { process: h.process, cls: 'ambiguous', causes: [], writes: writesLate };
  const active = faultsDuring(faults, end, lastAct);
  const onHolder = active.filter(
    (w) => w.processes.includes(h.process) || (w.processes.length === 0 && isNetworkOrPause(w.f)),
  );
  const slack = clientClockSlackNs(faults, h.acquiredAt, lastAct, h.process);
  const paused = onHolder.some((w) => isNetworkOrPause(w.f));
  // A session kept alive by heartbeats the history does not show lapses only when they stop: without a pause or a
  // network fault on the holder its session may still have been live — the server's doing, not the holder's.
  if (heartbeats && !paused) return { process: h.process, cls: 'ambiguous', causes: [], writes: writesLate };
  // By its own clock the holder counted its validity from its grant at the latest (Redlock from its last attempt, which
  // a retried acquire starts long after the request the window counts from): its own window is its latest end, moved.
  const ownClock = slack > 0 && !paused && lastAct <= (h.latestEnd ?? end) + slack;
  const causes = names(ownClock ? active.filter((w) => faultFacts(w.f)?.movesClocks) : onHolder);
  return {
    process: h.process,
    cls: ownClock ? 'own-clock' : 'outlived',
    causes: causes.length ? causes : ['no fault'],
    writes: writesLate,
  };
}

/** When a write acted: when it committed at the latest (its completion), else when it was sent. */
function actedAt(w: BankWrite): number {
  return w.writeId !== null && w.completeTime !== null ? w.completeTime : w.invokeTime;
}

function isNetworkOrPause(f: string): boolean {
  const family = faultFacts(f)?.family;
  return family === 'pause' || family === 'network';
}

function side(h: PromiseHold, faults: readonly FaultWindow[]): PromiseSide {
  const slack = h.window ? clientClockSlackNs(faults, h.acquiredAt, h.releasedAt, h.process) : 0;
  return {
    process: h.process,
    acquireIndex: h.acquireIndex,
    invokedAt: h.invokedAt,
    acquiredAt: h.acquiredAt,
    releasedAt: h.releasedAt,
    window: h.window,
    ...(h.window && slack > 0
      ? { ownWindow: { start: h.window.start, end: (h.latestEnd ?? h.window.end) + slack } }
      : {}),
    ...(h.unknownWhy !== undefined ? { unknownWhy: h.unknownWhy } : {}),
  };
}

function names(ws: readonly FaultWindow[]): string[] {
  return [...new Set(ws.map((w) => w.f))];
}

function under(causes: readonly string[]): string {
  return causes.length && causes[0] !== 'no fault' ? ` under ${causes.join(', ')}` : '';
}

function ms(ns: number): string {
  return `${(ns / 1e9).toFixed(3)} s`;
}
