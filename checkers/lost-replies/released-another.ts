import { faultFacts } from '../../faults/catalogue.ts';
import { accountOf } from '../../faults/judging/story-steps.ts';
import type { FaultWindow } from '../../history/fault-windows.ts';
import type { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { processRole } from '../../history/process-role.ts';
import { fmtSpan } from '../liveness.ts';
import { holdIntervals, type HoldInterval } from '../mutual-exclusion.ts';

/**
 * Released another's lock: a (retried) release removed a newer holder's key — etcd #22082, where Unlock's delete
 * commits, its reply is lost, and the retry deletes the next holder's key. In the history: A's release completed
 * after B was granted the same account (B's grant came between A's release being sent and its answer), then C was
 * granted while B still held, within B's TTL (so no expiry explains it). The mutual-exclusion and promise checkers
 * see B and C overlap; this names the cause: which release freed which holder. When the release was the one a
 * reply-loss shot aimed at, that shot is named too.
 */
export interface ReleasedAnother {
  account: number;
  /** A: the release's process and its invoke's history index. */
  releaser: number;
  releaseIndex: number;
  /** B: the holder whose lock it freed, by its grant's history index. */
  freed: number;
  freedGrantIndex: number;
  /** C: granted while B still held. */
  next: number;
  nextGrantIndex: number;
  atMs: number;
  /** The shot (its start's index) of the fault that dropped the release's reply, when one was aimed at it. */
  replyLossShot: number | null;
  text: string;
}

const ms = (ns: number): number => ns / 1e6;

export function releasedAnother(history: History, ttlMs: number | null): ReleasedAnother[] {
  const holds = holdIntervals(history.ops);
  const endNs = history.endTime;
  const out: ReleasedAnother[] = [];
  for (const pair of history.pairs) {
    const r = pair.invoke;
    if (r.f !== 'release' || typeof r.process !== 'number' || processRole(r.process).kind !== 'client') continue;
    const account = accountOf(r);
    if (account === undefined) continue;
    const answered = pair.completion?.time ?? endNs;
    const mine = holds.filter((h) => h.account === account && h.process !== r.process);
    // B: granted after A's release was sent and before it was answered.
    for (const b of mine.filter((h) => h.acquiredAt > r.time && h.acquiredAt < answered)) {
      const c = mine.find((h) => h.process !== b.process && stillHeld(b, h) && withinLease(history, b, h, ttlMs));
      if (!c) continue;
      out.push(describe(history, r, b, c, account));
      break;
    }
  }
  return out;
}

/** C granted after B and before B released (or was told its lock was lost). */
const stillHeld = (b: HoldInterval, c: HoldInterval): boolean =>
  c.acquiredAt > b.acquiredAt && c.acquiredAt < b.releasedAt;

/** C granted before B's lease could have run out (from B's acquire invoke); unknown TTL: not required. */
function withinLease(history: History, b: HoldInterval, c: HoldInterval, ttlMs: number | null): boolean {
  if (ttlMs === null) return true;
  const invoke = history.invokeOf(b.acquireIndex);
  return invoke !== undefined && c.acquiredAt < invoke.time + ttlMs * 1e6;
}

function describe(history: History, r: Op, b: HoldInterval, c: HoldInterval, account: number): ReleasedAnother {
  const shot = replyLossShot(history, r);
  const lost = shot ? ` (its first reply lost: ${shot.f} #${shot.startIndex})` : '';
  const a = r.process as number;
  return {
    account,
    releaser: a,
    releaseIndex: r.index,
    freed: b.process,
    freedGrantIndex: b.acquireIndex,
    next: c.process,
    nextGrantIndex: c.acquireIndex,
    atMs: ms(c.acquiredAt),
    replyLossShot: shot?.startIndex ?? null,
    text: `released another's lock: p${a}'s release #${r.index} of account ${account}${lost} was answered after p${b.process} was granted (#${b.acquireIndex} at ${fmtSpan(ms(b.acquiredAt))}), and p${c.process} was granted (#${c.acquireIndex} at ${fmtSpan(ms(c.acquiredAt))}) while p${b.process} still held: the release deleted p${b.process}'s key`,
  };
}

/**
 * The shot of a fault that loses replies whose end record names this release (its `releaseTime`, the release's
 * invoke: the one it dropped the reply to), by its start's history index; null when none did.
 */
function replyLossShot(history: History, release: Op): FaultWindow | undefined {
  return history.faults.find(
    (x) =>
      faultFacts(x.f)?.losesReplies === true &&
      x.endParams?.releaseTime === release.time &&
      x.endParams.process === release.process,
  );
}
