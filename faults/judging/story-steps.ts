import type { AccountRef } from '../../history/bank.ts';
import { CLIENT_EXITED } from '../../history/client-exit.ts';
import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { processRole } from '../../history/process-role.ts';
import { isStaleWriteRefusal } from '../../history/stale-write.ts';

/**
 * The rules the steps of the aimed faults' stories are judged by (faults/judging/story.ts), each over literal
 * ops: another client's grant and write, the holder's write and how it ended. The
 * nemesis watches for the same steps live to end a hold (OtherClientWrite, OtherClientGrant), so a hold that ended
 * on its story and the judge that reads the history afterwards go by one rule.
 */

/** The account an op is about (its value's `account`). */
export const accountOf = (op: Op): number | undefined => (op.value as Partial<AccountRef> | null)?.account;

/** Whether `op` is a client's own op (not a watchdog's, the harness's or the nemesis's) of another process than `holder`. */
export function byOtherClient(op: Op, holder: number): boolean {
  return typeof op.process === 'number' && processRole(op.process).kind === 'client' && op.process !== holder;
}

/** The first `f` invoked by `ops` at or before `atNs` that had not completed by then: the call a drop at `atNs` hit. */
export function inProgressAt(ops: readonly Op[], f: string, atNs: number, history: History): Op | undefined {
  return ops.find((op) => {
    if (op.f !== f || op.type !== 'invoke' || op.time > atNs) return false;
    const completion = history.completionOf(op);
    return completion == null || completion.time >= atNs;
  });
}

/** The time as the story tells it: seconds since the run's start. */
export const at = (ns: number): string => `${(ns / 1e9).toFixed(2)} s`;
/** A duration: in ms below a second, in seconds above. */
export const secs = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/**
 * Another client than the holder acquiring the holder's account after `sinceNs` and then committing a write on it.
 * Fed ops one at a time in an order that keeps each process's ops in its own order (the journal's arrival order
 * live, the history's time order afterwards).
 */
export class OtherClientWrite {
  /** The acquire that led to `write` once it is seen; until then the first other client's acquire after `sinceNs`. */
  grant: Op | undefined;
  /** The first write committed on the account by another client that acquired it after `sinceNs`. */
  write: Op | undefined;
  private readonly acquired = new Map<number, Op>();

  constructor(
    private readonly holder: number,
    private readonly account: number,
    private readonly sinceNs: number,
  ) {}

  /** True once the write is seen, and from then on. */
  observe(op: Op): boolean {
    if (this.write) return true;
    if (op.type !== 'ok' || !byOtherClient(op, this.holder) || accountOf(op) !== this.account) return false;
    const p = op.process as number;
    if (op.f === 'acquire' && op.time > this.sinceNs) {
      this.acquired.set(p, op);
      this.grant ??= op;
    } else if (op.f === 'write' && this.acquired.has(p)) {
      this.write = op;
      this.grant = this.acquired.get(p);
      return true;
    }
    return false;
  }

  /** Replays `ops` (history order) up to `untilNs` (exclusive); whether the write was seen. */
  replay(ops: readonly Op[], untilNs: number): boolean {
    for (const op of ops) if (op.time < untilNs && this.observe(op)) return true;
    return false;
  }
}

/** Another client's critical section on the holder's account: its grant, the read that opened it, its committed write. */
export interface OtherSection {
  grant: Op;
  read?: Op;
  write?: Op;
}

/**
 * The section of another client than `holder` that acquired `account` after `sinceNs` and read it before `readBeforeNs`
 * — it read a balance without the holder's pending write, so whichever of the two writes lands second erases the
 * other — with its write committed later in the history (at any time: the order of the two writes does not matter).
 * The first such section; else the furthest one seen (a grant, with or without a read in time), else undefined.
 */
export function otherSection(
  ops: readonly Op[],
  holder: number,
  account: number,
  sinceNs: number,
  readBeforeNs: number,
): OtherSection | undefined {
  const open = new Map<number, OtherSection>();
  let furthest: OtherSection | undefined;
  for (const op of ops) {
    if (op.type !== 'ok' || !byOtherClient(op, holder) || accountOf(op) !== account) continue;
    const p = op.process as number;
    if (op.f === 'acquire') {
      if (op.time > sinceNs && op.time < readBeforeNs) {
        const s: OtherSection = { grant: op };
        open.set(p, s);
        furthest ??= s;
      } else open.delete(p);
      continue;
    }
    const s = open.get(p);
    if (!s) continue;
    if (op.f === 'read' && !s.read) {
      if (op.time >= readBeforeNs) open.delete(p);
      else {
        s.read = op;
        if (!furthest?.read) furthest = s;
      }
    } else if (op.f === 'write' && s.read) {
      s.write = op;
      return s;
    }
  }
  return furthest;
}

/** Whether `op` is another client than the holder granted the holder's account after `sinceNs`: its acquire ok. */
export function isOtherGrant(op: Op, holder: number, account: number, sinceNs: number): boolean {
  return (
    op.f === 'acquire' &&
    op.type === 'ok' &&
    op.time > sinceNs &&
    byOtherClient(op, holder) &&
    accountOf(op) === account
  );
}

/** Another client than the holder granted the holder's account in (`fromNs`, `untilNs`). */
export function otherGrant(
  h: History,
  holder: number,
  account: number,
  fromNs: number,
  untilNs: number,
): Op | undefined {
  return h.ops.find((op) => op.time < untilNs && isOtherGrant(op, holder, account, fromNs));
}

/** The holder's write after the read that opened its section: its invoke and completion (null: it never completed). */
export function holderWrite(
  h: History,
  own: readonly Op[],
  read: Op,
): { invoke: Op; completion: Op | null } | undefined {
  const invoke = own.slice(own.indexOf(read) + 1).find((op) => op.type === 'invoke');
  if (!invoke || invoke.f !== 'write') return undefined;
  return { invoke, completion: h.completionOf(invoke) ?? null };
}

/**
 * "Its lease ran out": the holder was kept from acting — stopped, or its write held in flight — for at least the TTL.
 * pause-holder's and delay-write's judges decide their `lease-expired` step by it, and a scenario's
 * `wait lease-expired` (scenario/lease-clock.ts) waits until it holds: one rule, live and afterwards.
 */
export function leaseRanOut(keptMs: number, ttlMs: number): boolean {
  return keptMs >= ttlMs;
}

/** A step as a judge finds it. */
export interface StepFinding {
  status: 'done' | 'held' | 'missing';
  evidence: string;
}
export const done = (evidence: string): StepFinding => ({ status: 'done', evidence });
export const held = (evidence: string): StepFinding => ({ status: 'held', evidence });
export const missing = (evidence: string): StepFinding => ({ status: 'missing', evidence });

/**
 * The story's last step for a holder that lost its lock: its write, completed after `afterNs` (the other client's
 * grant or write). Committed: done. Refused by the resource as stale, or skipped because it learned it had lost the
 * lock: held — the lock (or its fence) passed. An unknown outcome (a timeout) is done too: the write may have
 * committed, and the ledger, not the client, decides. A death before it completed, a write that failed for another
 * reason, or one that completed before `afterNs` (the other client then read it: nothing was left to lose) is missing.
 */
export function holderWrote(
  write: { invoke: Op; completion: Op | null } | undefined,
  who: string,
  afterNs: number,
): StepFinding {
  if (!write) return missing(`${who} invoked no write after its read`);
  const c = write.completion;
  const i = `#${write.invoke.index}`;
  if (!c) return missing(`${who}'s write ${i} never completed before the history ended`);
  if (c.time <= afterNs)
    return missing(`${who}'s write ${i} completed at ${at(c.time)}, before that: the other client saw it`);
  if (c.type === 'ok') return done(`${who} wrote ${i}`);
  if (isStaleWriteRefusal(c)) return held(`${who}'s write ${i} was refused (${c.error})`);
  if (c.type === 'fail' && c.error === 'lock-lost')
    return held(`${who} learned it had lost the lock and skipped its write ${i}`);
  if (c.type === 'info' && c.error === CLIENT_EXITED) return missing(`${who} died before its write ${i} completed`);
  if (c.type === 'info')
    return done(`${who} sent its write ${i} (outcome unknown to it: ${c.error ?? 'info'}; the ledger decides)`);
  return missing(`${who}'s write ${i} failed (${c.error ?? 'no reason'}): it neither wrote nor was refused as stale`);
}
