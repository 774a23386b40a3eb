import type { AcquireOk } from '../../history/bank.ts';
import type { FaultWindow } from '../../history/fault-windows.ts';
import type { History, OpPair } from '../../history/history.ts';
import { clientProcessOf } from '../../history/process-role.ts';
import type { LeaseTerms } from '../../history/lease-terms.ts';
import { holdIntervals, type HoldInterval } from '../mutual-exclusion.ts';
import { clientClockSlackNs } from './holder-clock.ts';

/** What the checker knows of the lock's lease: the run's TTL and the lock's own terms (checkOptionsFor reads both). */
export interface PromiseTerms {
  /** `--ttl` in ms; null when the run recorded none. */
  ttlMs: number | null;
  /** null: the lock declares nothing (a plugin, a foreign lock): the validityMs it reports is all there is. */
  lease: LeaseTerms | null;
}

/**
 * Deliberately wrong variants of the checker, each one a mistake a promise checker can make (kahuna-jepsen made the
 * last one). The mutation test runs them against the labelled corpus, which must catch each. Never set in a run.
 */
export interface PromiseMutant {
  /** Leases counted from the acquire's (or renewal's) completion instead of its invoke: windows too long. */
  fromCompletion?: boolean;
  /** Successful renewals do not extend the window: windows too short. */
  ignoreRenewals?: boolean;
  /** Only holds adjacent in start order are compared: a long hold misses a later, non-adjacent one. */
  adjacentOnly?: boolean;
}

/** A window on the history's clock, ns since the run started: the lock promised the holder [start, end). */
export interface Window {
  start: number;
  end: number;
}

/** One hold (mutual-exclusion.ts's interval, the clients' view) with the promise the lock made for it. */
export interface PromiseHold extends HoldInterval {
  /** When its acquire was invoked (ns): the server cannot have started the lease before. */
  invokedAt: number;
  /** The promise window on the history's clock; null when it is not known (see `unknownWhy`). */
  window: Window | null;
  unknownWhy?: string;
  /**
   * The latest its promise can have ended (ns): leases counted from the replies. A holder
   * acting between the window's end and this may still have been inside the lease the lock really set (a waiting
   * acquire's lease began at some instant the history does not show): only past it is the holder certainly late.
   */
  latestEnd?: number;
  /** Successful renewals that extended the window. */
  renewals: number;
}

/**
 * What the clocks of a run cannot be trusted to within, beside the lock's own drift budget: Redis keeps expiry in
 * whole ms (1 ms), and a server's wall clock and the history's monotonic one may differ in rate by NTP's slew
 * (≤ 500 ppm, taken as 0.1 % of the lease). Windows are cut by it so that they are never longer than the truth.
 */
function marginNs(leaseMs: number): number {
  return (1 + leaseMs / 1000) * 1e6;
}

/**
 * The end of a lease asked for at `askedAt` (an acquire's or a renewal's invoke) and answered at `doneAt`, or why it
 * is not known. The earliest it can have ended (the window's end) counts every bound from the request: the server
 * starts its TTL at or after the request arrived, and a reported validityMs may have been measured from it (redis-py's
 * glue reports the TTL itself), so counting from the reply could make the window longer than the lease. `latest`:
 * the latest it can have ended, from the reply — a holder acting past that is certainly late.
 */
function leaseEnd(
  terms: PromiseTerms | undefined,
  at: { askedAt: number; doneAt: number; validityMs: number | undefined },
  mutant: PromiseMutant,
  latest = false,
): { end: number } | { why: string } {
  if (!terms) return { why: NO_TERMS };
  const from = latest || mutant.fromCompletion ? at.doneAt : at.askedAt;
  const lease = terms.lease;
  if (lease?.kind === 'unknown') return { why: lease.why };
  const leases: number[] = [];
  if (lease?.kind === 'ttl-from-request') {
    if (terms.ttlMs === null) return { why: 'the run recorded no TTL' };
    // The drift budget is part of what the lock promises: never more than TTL − drift from its request.
    const drift = lease.driftFactor !== undefined ? lease.driftFactor * terms.ttlMs + 2 : 0;
    leases.push(terms.ttlMs - drift);
  }
  if (lease?.kind === 'reported-from-request' && at.validityMs === undefined)
    return { why: 'its acquire reported no validityMs (the session timeout its lease is)' };
  if (at.validityMs !== undefined) leases.push(at.validityMs);
  if (leases.length === 0) return { why: NO_LEASE };
  const ms = Math.min(...leases);
  return { end: from + ms * 1e6 + (latest ? marginNs(ms) : -marginNs(ms)) };
}

export const NO_TERMS =
  "the run's record has no lease terms (it is from before fencepost checked the lock's promise): run it again to have them checked";
export const NO_LEASE =
  'the lock reports no validityMs and declares no lease: report validityMs (or declare a TTL lease) to have its promise checked';

/** The renewals of each hold: a watchdog's renew ops, by the client process they speak for and the account. */
function renewalsOf(history: History): Map<string, OpPair[]> {
  const out = new Map<string, OpPair[]>();
  for (const pair of history.pairs) {
    if (pair.invoke.f !== 'renew' || pair.completion?.type !== 'ok') continue;
    const client = clientProcessOf(pair.invoke.process);
    const account = (pair.invoke.value as { account?: number } | null)?.account;
    if (client === null || account === undefined) continue;
    const key = `${client}/${account}`;
    const list = out.get(key);
    if (list) list.push(pair);
    else out.set(key, [pair]);
  }
  return out;
}

/** Every hold of the history with its promise window: from its acquire's completion to the earliest bound. */
export function promiseHolds(
  history: History,
  terms: PromiseTerms | undefined,
  mutant: PromiseMutant = {},
): PromiseHold[] {
  const renewals = renewalsOf(history);
  const holds = holdIntervals(history.ops);
  const nextAcquire = nextAcquireOfProcess(holds);
  return holds.map((h, i) => {
    const acquire = history.pairOf(h.acquireIndex);
    const invokedAt = acquire?.invoke.time ?? h.acquiredAt;
    const validityMs = (history.op(h.acquireIndex)?.value as AcquireOk | null)?.validityMs;
    const base = { ...h, invokedAt, renewals: 0 };
    // A validity the client measured on a clock a fault moved may be longer than the lease: only a TTL is sure then.
    if (terms?.lease === null && clientClockSlackNs(history.faults, invokedAt, h.acquiredAt, h.process) > 0)
      return { ...base, window: null, unknownWhy: 'it measured its validity on a client clock a fault moved' };
    // The hold's renewals: after its acquire, before the same process's next acquire.
    const mine = (renewals.get(`${h.process}/${h.account}`) ?? []).filter(
      (r) => r.invoke.index > h.acquireIndex && r.invoke.index < nextAcquire[i],
    );
    const acquired = { askedAt: invokedAt, doneAt: h.acquiredAt, validityMs };
    const until = givenUpAt(history, h);
    const earliest = promisedUntil(until, acquired, mutant.ignoreRenewals ? [] : mine, terms, mutant, false);
    if ('why' in earliest) return { ...base, window: null, unknownWhy: earliest.why };
    const latest = promisedUntil(until, acquired, mine, terms, {}, true);
    return {
      ...base,
      window: { start: h.acquiredAt, end: earliest.end },
      latestEnd: 'why' in latest ? earliest.end : Math.max(earliest.end, latest.end),
      renewals: earliest.renewals,
    };
  });
}

/** For each hold (in acquire order), the history index of its process's next acquire (Infinity: none). */
function nextAcquireOfProcess(holds: readonly HoldInterval[]): number[] {
  const next = new Array<number>(holds.length).fill(Infinity);
  const seen = new Map<number, number>();
  for (let i = holds.length - 1; i >= 0; i--) {
    next[i] = seen.get(holds[i].process) ?? Infinity;
    seen.set(holds[i].process, holds[i].acquireIndex);
  }
  return next;
}

/** How long the lock promised `h` (the earliest end, or with `latest` the latest), its renewals included. */
function promisedUntil(
  until: number,
  acquired: { askedAt: number; doneAt: number; validityMs: number | undefined },
  renewals: readonly OpPair[],
  terms: PromiseTerms | undefined,
  mutant: PromiseMutant,
  latest: boolean,
): { end: number; renewals: number } | { why: string } {
  const first = leaseEnd(terms, acquired, mutant, latest);
  if ('why' in first) return first;
  let end = first.end;
  let renewed = 0;
  for (const r of renewals) {
    // A renewal asked for after the window ended may have found the lease lapsed: it extends nothing certain.
    if (r.invoke.time > end) break;
    const reported = (r.completion!.value as { validityMs?: number } | null)?.validityMs;
    const validityMs = reported ?? sessionValidity(terms, acquired.validityMs);
    const more = leaseEnd(terms, { askedAt: r.invoke.time, doneAt: r.completion!.time, validityMs }, mutant, latest);
    if ('why' in more) break;
    if (more.end > end) renewed++;
    end = Math.max(end, more.end);
  }
  return { end: Math.min(end, until), renewals: renewed };
}

/**
 * When the holder gave the lock up, as far as the history shows: its first release's invoke (a retried release keeps
 * the first: the first may have committed with its reply lost), or, when it never released, its last op — its
 * process went on under a new id or died, and a client that closes its lock client may free the lock with it (a
 * ZooKeeper session closed, a library releasing on close). A hold a failed renewal ended (lock-lost) is given up at
 * the release the client still sends, or its last op: the lease it was granted runs on until then.
 */
function givenUpAt(history: History, h: HoldInterval): number {
  if (h.end !== 'lock-lost') return h.releasedAt;
  let last = h.releasedAt;
  for (const op of history.ops.slice(h.endIndex + 1)) {
    if (op.process !== h.process) continue;
    if (op.type === 'invoke' && op.f === 'release') return op.time;
    if (op.type === 'invoke' && op.f === 'acquire') break;
    last = op.time;
  }
  return last;
}

/** A session lease's renewal keeps the session's timeout: the one its acquire reported. */
function sessionValidity(terms: PromiseTerms | undefined, acquired: number | undefined): number | undefined {
  return terms?.lease?.kind === 'reported-from-request' ? acquired : undefined;
}

/** Faults active at some instant of [from, to] (ns). */
export function faultsDuring(faults: readonly FaultWindow[], from: number, to: number): FaultWindow[] {
  return faults.filter((w) => w.start <= to && (w.end ?? Infinity) >= from);
}
