import type { History, OpPair } from '../../history/history.ts';
import { processRole } from '../../history/process-role.ts';
import { accountOf } from '../../faults/judging/story-steps.ts';
import { fmtSpan } from '../liveness.ts';
import { nextGrant, type DroppedGrant } from './dropped-grants.ts';
import { faultFacts } from '../../faults/catalogue.ts';

/**
 * Never released: a release that returned ok while the owner's key (node) stayed on the server — the Redisson #7367
 * signature (a reentrant hold count of 2 that one release only decrements), CURATOR-678's kept znode. Read from the
 * next acquirer's wait: a client was already waiting for the account when the release said ok, and the next grant
 * of it came only half a TTL or more later (or never). A release that took effect hands the lock over within a
 * waiter's poll and a round trip; a key that stayed waits out its TTL, or for ever with a watchdog renewing it.
 *
 * A wait overlapping any other fault (a latency, a partition, a pause) is left alone: that fault may be the wait.
 * So is one in which a dropped grant of the account began: the release took effect, and another client's `SET NX`
 * took the key right after, its reply lost — an orphan (orphaned-lock.ts), not this. A release reported
 * `released: false` told its client the truth and is no finding.
 */
export interface NeverReleased {
  process: number;
  account: number;
  /** History index of the release's ok completion. */
  releaseIndex: number;
  releasedAtMs: number;
  /** Clients waiting for the account as the release said ok. */
  waiters: number[];
  /** The next grant of the account, or null: none before the run ended. */
  nextHolder: number | null;
  waitMs: number;
  ttlMs: number;
  text: string;
}

/** How long after a release's ok a waiter may go ungranted before the release reads as not carried out. */
export const NEVER_RELEASED_TTL_FRACTION = 0.5;

const ms = (ns: number): number => ns / 1e6;

const isClient = (p: OpPair): boolean =>
  typeof p.invoke.process === 'number' && processRole(p.invoke.process).kind === 'client';

export function neverReleased(
  history: History,
  grants: readonly DroppedGrant[],
  ttlMs: number | null,
): NeverReleased[] {
  if (ttlMs === null) return [];
  const endNs = history.endTime;
  const out: NeverReleased[] = [];
  for (const pair of history.pairs) {
    const done = pair.completion;
    if (pair.invoke.f !== 'release' || done?.type !== 'ok' || !isClient(pair)) continue;
    if ((done.value as { released?: unknown } | null)?.released === false) continue;
    const account = accountOf(pair.invoke);
    if (account === undefined) continue;
    const t = done.time;
    const waiters = history.bank.acquires
      .filter((a) => isClient(a) && a.invoke.process !== pair.invoke.process && accountOf(a.invoke) === account)
      .filter((a) => a.invoke.time < t && (a.completion === null || a.completion.time > t))
      .map((a) => a.invoke.process as number);
    if (!waiters.length) continue;
    const grant = nextGrant(history, account, t);
    const to = grant?.time ?? endNs;
    const waitMs = ms(to - t);
    if (waitMs < NEVER_RELEASED_TTL_FRACTION * ttlMs) continue;
    const otherFault = history.faults.some(
      (w) => faultFacts(w.f)?.losesReplies !== true && w.start < to && (w.end ?? endNs) > t,
    );
    const orphaned = grants.some((g) => g.account === account && g.droppedAt >= pair.invoke.time && g.droppedAt < to);
    if (otherFault || orphaned) continue;
    const n: NeverReleased = {
      process: pair.invoke.process as number,
      account,
      releaseIndex: done.index,
      releasedAtMs: ms(t),
      waiters: [...new Set(waiters)].sort((a, b) => a - b),
      nextHolder: grant ? (grant.process as number) : null,
      waitMs,
      ttlMs,
      text: '',
    };
    const after = grant
      ? `p${n.nextHolder} was granted it only ${fmtSpan(waitMs)} later`
      : `no client was granted it again before the run ended (${fmtSpan(waitMs)} later)`;
    n.text = `never released: p${n.process}'s release #${n.releaseIndex} of account ${account} returned ok at ${fmtSpan(n.releasedAtMs)} with ${n.waiters.length} waiting, yet ${after}, TTL ${fmtSpan(ttlMs)}: the release did not hand the lock over — the owner's key outlived it, or the waiters were waiting out a lease they had read`;
    out.push(n);
  }
  return out;
}
