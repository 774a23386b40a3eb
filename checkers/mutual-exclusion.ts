import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { AcquireOk, AccountRef } from '../history/bank.ts';
import type { CheckerResult, Overlap } from './run-results.ts';
import type { BankWrite } from '../history/bank-view.ts';

/** How long one client believed it held one account's lock, in harness time (ns). */
export interface HoldInterval {
  process: number;
  account: number;
  acquiredAt: number;
  releasedAt: number;
  acquireIndex: number;
  /** The fencing token the acquire returned, if the strategy has one. */
  token?: string;
  /** History index where the hold ends (the release invoke, or the client's last completion). */
  endIndex: number;
  /** How it ended: released, told the lock was lost, or never released (the client crashed or the run ended). */
  end: 'release' | 'lock-lost' | 'never-released';
  writes: BankWrite[];
}

export interface MutualExclusionResult extends CheckerResult {
  overlaps: Overlap[];
  suspected: number;
  confirmed: number;
  intervals: number;
  note?: string;
}

/**
 * Mutual exclusion, from the clients' view and checked against the resource.
 *
 * A client holds a lock from its `acquire` ok until it invokes `release`, or until a `renew` of that lock fails
 * (the watchdog told it the lock was lost). A client that never releases (crashed, paused, or the run ended) is
 * counted as holding until the end of its last op, or the end of the history if that op never completed.
 *
 * Two holds of one account by different processes that overlap in harness time are *suspected*: all times are
 * from the harness's single monotonic clock, but a client may learn about its lock late. An overlap is
 * *confirmed* when the ledger shows the two critical sections interleaved: one client's committed write was
 * based on a balance older than the other's committed write, yet committed after it (a lost update between
 * them). Only confirmed overlaps make the result invalid; a fenced resource that refused the stale write
 * leaves a suspected overlap and no damage.
 */
export function checkMutualExclusion(input: History | readonly Op[]): MutualExclusionResult {
  const history = History.of(input);
  const intervals = holdIntervals(history.ops);
  if (intervals.length === 0) {
    return {
      valid: true,
      overlaps: [],
      suspected: 0,
      confirmed: 0,
      intervals: 0,
      note: 'no acquire ops: nothing held a lock, so there is nothing to overlap (strategy "none"?)',
    };
  }
  attachWrites(intervals, history.bank.writes);

  const overlaps: Overlap[] = [];
  const byAccount = new Map<number, HoldInterval[]>();
  for (const i of intervals) {
    const list = byAccount.get(i.account);
    if (list) list.push(i);
    else byAccount.set(i.account, [i]);
  }
  for (const [account, list] of [...byAccount].sort((x, y) => x[0] - y[0])) {
    list.sort((x, y) => x.acquiredAt - y.acquiredAt || x.acquireIndex - y.acquireIndex);
    let active: HoldInterval[] = [];
    for (const b of list) {
      active = active.filter((a) => a.releasedAt > b.acquiredAt);
      for (const a of active) {
        if (a.process === b.process) continue;
        const evidence = interleaving(a, b) ?? interleaving(b, a);
        overlaps.push({
          account,
          a: summary(a),
          b: summary(b),
          kind: evidence ? 'confirmed' : 'suspected',
          ...(evidence ? { evidence } : {}),
        });
      }
      active.push(b);
    }
  }
  const confirmed = overlaps.filter((o) => o.kind === 'confirmed').length;
  return {
    valid: confirmed === 0,
    overlaps,
    suspected: overlaps.length - confirmed,
    confirmed,
    intervals: intervals.length,
  };
}

export function holdIntervals(history: readonly Op[]): HoldInterval[] {
  const done: HoldInterval[] = [];
  const holding = new Map<number, HoldInterval>();
  const holderOf = new Map<string, number>();
  const open = new Map<number, Op>();
  const close = (p: number, at: Op, end: HoldInterval['end']): void => {
    const h = holding.get(p);
    if (!h) return;
    holding.delete(p);
    done.push({ ...h, releasedAt: at.time, endIndex: at.index, end });
  };
  for (const op of history) {
    if (typeof op.process !== 'number') continue;
    const p = op.process;
    if (op.type === 'invoke') {
      if (op.f === 'release') close(p, op, 'release');
      open.set(p, op);
      continue;
    }
    const invoke = open.get(p);
    open.delete(p);
    const h = holding.get(p);
    if (h) {
      // Until we learn otherwise, the hold lasts at least to the end of the client's latest op.
      h.releasedAt = op.time;
      h.endIndex = op.index;
    }
    if (invoke?.f === 'acquire' && op.type === 'ok') {
      if (h) close(p, op, 'release');
      const account = (op.value as AcquireOk | null)?.account ?? (invoke.value as AccountRef).account;
      const token = (op.value as AcquireOk | null)?.token;
      if (token !== undefined) holderOf.set(`${account}/${token}`, p);
      holding.set(p, {
        token,
        process: p,
        account,
        acquiredAt: op.time,
        releasedAt: op.time,
        acquireIndex: op.index,
        endIndex: op.index,
        end: 'never-released',
        writes: [],
      });
    } else if (invoke?.f === 'renew' && op.type === 'fail') {
      // The watchdog renews under a process id of its own (its ops overlap the client's), so the hold it
      // speaks for is found by account and token, not by process.
      const v = invoke.value as { account?: number; token?: string } | null;
      const holder = v?.token === undefined ? undefined : holderOf.get(`${v.account}/${v.token}`);
      if (holder !== undefined && holding.get(holder)?.token === v?.token) close(holder, op, 'lock-lost');
      else if (holding.has(p)) close(p, op, 'lock-lost');
    }
  }
  const endOfHistory = history.length > 0 ? history[history.length - 1] : undefined;
  for (const [p, h] of holding) {
    // An op still open when the history ended may still be running under the lock.
    const stillRunning = open.has(p) && endOfHistory !== undefined;
    done.push({
      ...h,
      ...(stillRunning ? { releasedAt: endOfHistory.time, endIndex: endOfHistory.index } : {}),
      end: 'never-released',
    });
  }
  return done.sort((a, b) => a.acquireIndex - b.acquireIndex);
}

function attachWrites(intervals: HoldInterval[], writes: BankWrite[]): void {
  const byProcess = new Map<number, HoldInterval[]>();
  for (const i of intervals) {
    const list = byProcess.get(i.process);
    if (list) list.push(i);
    else byProcess.set(i.process, [i]);
  }
  for (const w of writes) {
    const list = byProcess.get(w.process);
    if (!list) continue;
    // The hold this write ran in: the process's last acquire before it (holds of one process don't overlap).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].acquireIndex < w.invokeIndex) lo = mid + 1;
      else hi = mid;
    }
    const hold = list[lo - 1];
    if (hold && hold.account === w.account && w.invokeIndex <= hold.endIndex) hold.writes.push(w);
  }
}

/** Evidence that `late`'s committed write did not see `early`'s, though `early`'s committed first. */
function interleaving(early: HoldInterval, late: HoldInterval): string | undefined {
  for (const we of early.writes) {
    if (we.writeId === null) continue;
    for (const wl of late.writes) {
      if (wl.writeId === null) continue;
      if (wl.value.basedOn < we.writeId && we.writeId < wl.writeId) {
        return (
          `process ${late.process}'s write ${wl.writeId} (op #${wl.invokeIndex}) was based on write ${wl.value.basedOn} and ` +
          `committed after process ${early.process}'s write ${we.writeId} (op #${we.invokeIndex}), erasing it`
        );
      }
    }
  }
  return undefined;
}

function summary(i: HoldInterval): Overlap['a'] {
  return { process: i.process, acquiredAt: i.acquiredAt, releasedAt: i.releasedAt, acquireIndex: i.acquireIndex };
}
