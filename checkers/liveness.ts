import { faultFacts } from '../faults/catalogue.ts';
import type { AccountRef } from '../history/bank.ts';
import { faultLabel, type FaultWindow } from '../history/fault-windows.ts';
import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import { processRole } from '../history/process-role.ts';
import { holdIntervals, type HoldInterval } from './mutual-exclusion.ts';
import { quantiles } from './op-stats.ts';
import type { CheckerResult, Quantiles, RunResults } from './run-results.ts';
import { subtract, union } from './time-spans.ts';

/**
 * Liveness, measured from the history: how long the lock was unavailable, and who was kept out. These are
 * measurements with findings of their own, not safety verdicts: a slow run is not INVALID. Only a bound the
 * user sets (`--max-stall`, or `maxStallMs` in the expectations file) turns the longest stall into a verdict, and
 * then as the `liveness` checker's own, named apart from lost updates.
 *
 * What is measured, all on the harness's one monotonic clock, from the clients' view:
 *  - recovery: from each fault's start and from its end to the next acquire that completed ok;
 *  - stalls: per account, stretches in which at least one client was waiting for the lock (an acquire open, or
 *    retrying after one that failed) and no client held it, longer than the TTL — a free lock nobody can take;
 *  - lockouts: for a fault aimed at the holder (pause-holder, kill-holder), how long after it began the account the
 *    holder held went to another client;
 *  - each client slot's share of the committed writes (starvation);
 *  - acquire latency (invoke → ok) for acquires invoked during a fault and outside every fault.
 */

export interface LivenessOptions {
  /**
   * The lock's TTL (lease, session timeout): a stall is a free-but-untakeable stretch longer than this. null: no
   * yardstick, so no stalls are measured (a literal history checked on its own).
   */
  ttlMs: number | null;
  /** `--max-stall`: the longest stall the user accepts; absent = measured, not judged. */
  maxStallMs?: number | null;
  /** Client slots: process `p` runs in slot `p mod concurrency` (client-pool.ts). Absent = one slot per process. */
  concurrency?: number;
}

export interface Recovery {
  f: string;
  label: string;
  startMs: number;
  endMs: number | null;
  /** Fault start → the next acquire ok; null when none completed before the history ended. */
  afterStartMs: number | null;
  /** Fault end → the next acquire ok; null when the fault never ended or no acquire completed after it. */
  afterEndMs: number | null;
}

export interface Stall {
  account: number;
  fromMs: number;
  toMs: number;
  durationMs: number;
  /** Client processes that waited in it. */
  waiters: number[];
  /** How it ended: a client acquired, or nobody did before the clients stopped or gave up (a deadlock). */
  endedBy: 'acquire' | 'history-end';
  /** Faults active during it, as phrases (`pause-node on etcd leader etcd[2]`). */
  faults: string[];
}

export interface Lockout {
  f: string;
  label: string;
  /** The targeted holder's process and the account it held when the fault began. */
  process: number;
  account: number;
  fromMs: number;
  /** When another client acquired that account; null: nobody did before the history ended. */
  toMs: number | null;
  durationMs: number;
  nextHolder: number | null;
}

export interface WriterShare {
  slot: number;
  writes: number;
  /** writes / all committed writes (0 when nothing committed). */
  share: number;
}

export interface LivenessResult extends CheckerResult {
  ttlMs: number | null;
  maxStallMs: number | null;
  recoveries: Recovery[];
  /** Over the faults that ended: fault end → next acquire ok (median, max); null when no fault ended. */
  recoveryMs: { median: number; max: number; unrecovered: number } | null;
  stalls: Stall[];
  /** The longest stall, 0 when there was none. */
  longestStallMs: number;
  lockouts: Lockout[];
  shares: WriterShare[];
  /** Slots that committed nothing while others committed (starved). */
  starved: number[];
  acquireLatency: { duringFaults: Quantiles; outsideFaults: Quantiles };
  /** The measurements as sentences: what a report, the summary and the matrix say. */
  findings: string[];
  note?: string;
}

const ms = (ns: number): number => ns / 1e6;
/** `7.4 s` / `350 ms`: the one spelling of a measured duration in the findings. */
export const fmtSpan = (durMs: number): string =>
  durMs >= 1000 ? `${(durMs / 1000).toFixed(1)} s` : `${Math.round(durMs)} ms`;

export function checkLiveness(input: History | readonly Op[], opts: LivenessOptions): LivenessResult {
  const history = History.of(input);
  const endMs = ms(history.endTime);
  const ttlMs = opts.ttlMs ?? null;
  const maxStallMs = opts.maxStallMs ?? null;
  const acquireOks = acquireOkTimes(history);
  const holds = holdIntervals(history.ops);
  const recoveries = history.faults.map((w) => recoveryOf(w, acquireOks));
  // Without a TTL there is no yardstick for "longer than it should take": stalls are not measured then.
  const stalls = ttlMs === null ? [] : stallsOf(history, holds, ttlMs, endMs, opts.concurrency);
  const longestStallMs = stalls.reduce((m, s) => Math.max(m, s.durationMs), 0);
  const lockouts = lockoutsOf(history.faults, holds, endMs);
  const { shares, starved } = writerShares(history, opts.concurrency);
  const ended = recoveries.filter((r) => r.afterEndMs !== null).map((r) => r.afterEndMs as number);
  const unrecovered = recoveries.filter((r) => r.endMs !== null && r.afterEndMs === null).length;
  const sorted = [...ended].sort((a, b) => a - b);
  const recoveryMs =
    sorted.length > 0 || unrecovered > 0
      ? {
          median: sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : 0,
          max: sorted.length ? sorted[sorted.length - 1] : 0,
          unrecovered,
        }
      : null;
  const result: LivenessResult = {
    valid: maxStallMs === null || longestStallMs <= maxStallMs,
    ttlMs,
    maxStallMs,
    recoveries,
    recoveryMs,
    stalls,
    longestStallMs,
    lockouts,
    shares,
    starved,
    acquireLatency: acquireLatency(history),
    findings: [],
  };
  result.findings = livenessFindings(result, endMs);
  if (ttlMs === null) result.note = 'no TTL known: stalls not measured (recovery, lockouts and shares are)';
  else if (maxStallMs === null) result.note = 'measured, not judged: no --max-stall bound was set';
  return result;
}

/** Completion times (ms) of every client acquire that completed ok, ascending. */
function acquireOkTimes(history: History): number[] {
  return history.bank.acquires
    .filter((p) => p.completion?.type === 'ok')
    .map((p) => ms(p.completion!.time))
    .sort((a, b) => a - b);
}

/** The first time in `sorted` at or after `t`, or null. */
function firstAtOrAfter(sorted: readonly number[], t: number): number | null {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo] : null;
}

function recoveryOf(w: FaultWindow, acquireOks: readonly number[]): Recovery {
  const afterStart = firstAtOrAfter(acquireOks, w.startMs);
  const afterEnd = w.endMs === null ? null : firstAtOrAfter(acquireOks, w.endMs);
  return {
    f: w.f,
    label: faultLabel(w),
    startMs: w.startMs,
    endMs: w.endMs,
    afterStartMs: afterStart === null ? null : afterStart - w.startMs,
    afterEndMs: afterEnd === null || w.endMs === null ? null : afterEnd - w.endMs,
  };
}

interface Span {
  from: number;
  to: number;
  process: number;
}

/**
 * Each client's waits, per account: from an acquire's invocation to its ok, and a failed or unknown acquire's wait
 * goes on until that slot's next acquire is invoked (the client loop retries after 10–30 ms, or after a reconnect
 * under a new process id), so a client retrying in a loop is one wait, not a comb of short ones.
 */
function waitsByAccount(history: History, concurrency: number | undefined, endMs: number): Map<number, Span[]> {
  const slotOf = (p: number): number => (concurrency ? p % concurrency : p);
  const bySlot = new Map<
    number,
    { account: number; from: number; to: number | null; ok: boolean; process: number }[]
  >();
  for (const pair of history.bank.acquires) {
    const p = pair.invoke.process as number;
    if (processRole(p).kind === 'watchdog') continue;
    const account = (pair.invoke.value as AccountRef | null)?.account ?? 0;
    const list = bySlot.get(slotOf(p)) ?? [];
    list.push({
      account,
      from: ms(pair.invoke.time),
      to: pair.completion ? ms(pair.completion.time) : null,
      ok: pair.completion?.type === 'ok',
      process: p,
    });
    bySlot.set(slotOf(p), list);
  }
  const out = new Map<number, Span[]>();
  for (const list of bySlot.values()) {
    list.sort((a, b) => a.from - b.from);
    list.forEach((a, i) => {
      const next = list[i + 1];
      // An acquire that never completed waits to the end; a failed one until the slot tries again.
      const to = a.to === null ? endMs : a.ok ? a.to : next ? Math.max(a.to, next.from) : a.to;
      const spans = out.get(a.account) ?? [];
      spans.push({ from: a.from, to, process: a.process });
      out.set(a.account, spans);
    });
  }
  return out;
}

function stallsOf(
  history: History,
  holds: readonly HoldInterval[],
  ttlMs: number,
  endMs: number,
  concurrency: number | undefined,
): Stall[] {
  const waits = waitsByAccount(history, concurrency, endMs);
  const stalls: Stall[] = [];
  for (const [account, spans] of [...waits].sort((x, y) => x[0] - y[0])) {
    const held = union(
      holds.filter((h) => h.account === account).map((h) => ({ from: ms(h.acquiredAt), to: ms(h.releasedAt) })),
    );
    for (const gap of subtract(union(spans), held)) {
      const durationMs = gap.to - gap.from;
      if (durationMs <= ttlMs) continue;
      const waiters = [...new Set(spans.filter((s) => s.from < gap.to && s.to > gap.from).map((s) => s.process))];
      stalls.push({
        account,
        fromMs: gap.from,
        toMs: gap.to,
        durationMs,
        waiters: waiters.sort((a, b) => a - b),
        // Ended by an acquire only when a hold begins where it ends; a stall whose waiters gave up or were stopped
        // with the lock still untaken ran to the end of the clients' run.
        endedBy: held.some((x) => x.from === gap.to) ? 'acquire' : 'history-end',
        faults: history.faults
          .filter((w) => w.startMs <= gap.to && (w.endMs ?? endMs) >= gap.from)
          .map((w) => faultLabel(w)),
      });
    }
  }
  return stalls.sort((a, b) => a.fromMs - b.fromMs);
}

function lockoutsOf(faults: readonly FaultWindow[], holds: readonly HoldInterval[], endMs: number): Lockout[] {
  const out: Lockout[] = [];
  for (const w of faults) {
    // A fault whose target is the client holding the lock: its lockout is measured (how long the lock stayed its).
    if (faultFacts(w.f)?.locksOut !== true) continue;
    for (const p of w.processes) {
      const start = w.start;
      const held = holds.find((h) => h.process === p && h.acquiredAt <= start && h.releasedAt >= start);
      if (!held) continue;
      const next = holds
        .filter((h) => h.account === held.account && h.process !== p && h.acquiredAt >= start)
        .sort((a, b) => a.acquiredAt - b.acquiredAt)[0];
      const toMs = next ? ms(next.acquiredAt) : null;
      out.push({
        f: w.f,
        label: faultLabel(w),
        process: p,
        account: held.account,
        fromMs: w.startMs,
        toMs,
        durationMs: (toMs ?? endMs) - w.startMs,
        nextHolder: next ? next.process : null,
      });
    }
  }
  return out;
}

function writerShares(history: History, concurrency: number | undefined): { shares: WriterShare[]; starved: number[] } {
  const counts = new Map<number, number>();
  if (concurrency) for (let s = 0; s < concurrency; s++) counts.set(s, 0);
  let total = 0;
  for (const w of history.bank.writes) {
    if (w.outcome !== 'ok' || processRole(w.process).kind === 'watchdog') continue;
    const slot = concurrency ? w.process % concurrency : w.process;
    counts.set(slot, (counts.get(slot) ?? 0) + 1);
    total++;
  }
  const shares = [...counts]
    .sort((a, b) => a[0] - b[0])
    .map(([slot, writes]) => ({ slot, writes, share: total > 0 ? writes / total : 0 }));
  return { shares, starved: total > 0 ? shares.filter((s) => s.writes === 0).map((s) => s.slot) : [] };
}

function acquireLatency(history: History): LivenessResult['acquireLatency'] {
  const during: number[] = [];
  const outside: number[] = [];
  const endNs = history.endTime;
  for (const p of history.bank.acquires) {
    if (p.completion?.type !== 'ok') continue;
    const at = p.invoke.time;
    const inFault = history.faults.some((w) => w.start <= at && (w.end ?? endNs) >= at);
    (inFault ? during : outside).push(ms(p.completion.time - at));
  }
  return { duringFaults: quantiles(during), outsideFaults: quantiles(outside) };
}

function livenessFindings(r: LivenessResult, endMs: number): string[] {
  const ttl = r.ttlMs === null ? '' : `; TTL ${fmtSpan(r.ttlMs)}`;
  const out: string[] = [];
  for (const s of r.stalls) {
    const during = s.faults.length ? ` during ${s.faults.join(', ')}` : ' with no fault active';
    out.push(
      s.endedBy === 'history-end'
        ? `the lock on account ${s.account} was free yet untaken from ${fmtSpan(s.fromMs)} to the end of the run (${fmtSpan(s.durationMs)}, ${s.waiters.length} waiting)${during}: a deadlock${ttl}`
        : `the lock on account ${s.account} was unavailable for ${fmtSpan(s.durationMs)} from ${fmtSpan(s.fromMs)} (${s.waiters.length} waiting, none holding)${during}${ttl}`,
    );
  }
  for (const rec of r.recoveries) {
    if (rec.endMs !== null && rec.afterEndMs === null)
      out.push(
        `no client acquired the lock after ${rec.label} ended at ${fmtSpan(rec.endMs)} (run ended ${fmtSpan(endMs - rec.endMs)} later)`,
      );
    else if (rec.afterEndMs !== null && r.ttlMs !== null && rec.afterEndMs > r.ttlMs)
      out.push(`the lock was unavailable for ${fmtSpan(rec.afterEndMs)} after ${rec.label} ended${ttl}`);
  }
  for (const l of r.lockouts) {
    out.push(
      l.toMs === null
        ? `${l.label}: the lock on account ${l.account} stayed p${l.process}'s to the end of the run (${fmtSpan(l.durationMs)})${ttl}`
        : `${l.label}: p${l.process}'s lock on account ${l.account} kept others out for ${fmtSpan(l.durationMs)} (p${l.nextHolder} acquired next)${ttl}`,
    );
  }
  if (r.starved.length > 0)
    out.push(
      `client slot${r.starved.length > 1 ? 's' : ''} ${r.starved.join(', ')} committed no write while others did (starved): shares ${r.shares.map((s) => `${s.slot}: ${s.writes}`).join(', ')}`,
    );
  if (r.maxStallMs !== null && r.longestStallMs > r.maxStallMs)
    out.unshift(`longest stall ${fmtSpan(r.longestStallMs)} exceeds --max-stall=${r.maxStallMs}`);
  return out;
}

/**
 * The summary's liveness lines (the run's console summary and `check`'s): the numbers first, then why the liveness
 * checker failed — named apart from lost updates, since a stall past `--max-stall` is no safety violation.
 */
export function livenessLines(l: NonNullable<RunResults['liveness']> | undefined): string[] {
  if (!l) return [];
  const recovery = l.recoveryMs
    ? `recovery after faults median ${fmtSpan(l.recoveryMs.median)}, max ${fmtSpan(l.recoveryMs.max)}${l.recoveryMs.unrecovered ? `, ${l.recoveryMs.unrecovered} never recovered` : ''}`
    : 'no fault ended';
  const stall = l.stalls
    ? `longest stall ${fmtSpan(l.longestStallMs)} (${l.stalls} over the TTL${l.ttlMs === null ? '' : ` of ${fmtSpan(l.ttlMs)}`})`
    : 'no stall over the TTL';
  const bound =
    l.maxStallMs === null ? '' : `; --max-stall=${l.maxStallMs}: ${l.valid === false ? 'EXCEEDED' : 'held'}`;
  // What lost replies broke comes after the stalls, every one: an orphan's span is the figure a reply-loss run is for.
  return [
    `  liveness: ${recovery}; ${stall}${bound}`,
    ...l.findings.slice(0, 3).map((f) => `  liveness: ${f}`),
    ...(l.lostReplies ?? []).map((f) => `  liveness: ${f}`),
  ];
}
