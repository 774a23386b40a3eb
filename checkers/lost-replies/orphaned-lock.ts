import type { History } from '../../history/history.ts';
import { fmtSpan } from '../liveness.ts';
import { nextGrant, type DroppedGrant } from './dropped-grants.ts';

/**
 * Orphaned lock: the server holds a lock no live client believes it holds. It begins at a dropped grant (the server
 * committed the client's acquire, its reply was lost) whose acquire did not end ok — the client gave up, or is
 * still waiting — and ends when the server let the lock go: the next grant of that account to anyone, or the key's
 * TTL end as the PTTL read right after the drop gives it, whichever came first (else the end of the run).
 *
 * A lease lock pays for a lost grant with up to one TTL of an orphan: every acquirer waits it out (fencepost's
 * `redis` recipe, redis-semaphore: the self-blocking class). That is a liveness figure, not a defect. One that
 * outlives the TTL plus the client's own retry budget — how long its acquire went on after the drop, during which a
 * resent request could still take the key again — plus a grant's grace (the waiters' poll, a round trip) is a
 * finding: a key that never expires, a session the client keeps alive with nothing of its own on it.
 *
 * A lock with no lease (a session advisory lock: the grant's `noLease`) has no TTL to measure against: the server
 * keeps it as long as the session, which ends only when its connection does. Its orphan is judged against the
 * client's retry budget alone, and its text says that no TTL bounds it.
 */
export interface OrphanedLock {
  /** The fault whose shot dropped the grant's reply. */
  f: string;
  shot: number;
  process: number;
  account: number;
  /** History index of the acquire whose grant was orphaned. */
  acquireIndex: number;
  fromMs: number;
  toMs: number;
  durationMs: number;
  /** How the server let it go: another grant, the key's TTL, or it held on to the end of the run. */
  endedBy: 'grant' | 'ttl' | 'run-end';
  /** Who was granted next, when that ended it. */
  nextHolder: number | null;
  ttlMs: number | null;
  /** From the drop to the end of the client's own acquire: the library's retry budget, as it spent it. */
  budgetMs: number;
  /** Redis read the orphaned key's PTTL as -1: it never expires. */
  neverExpires: boolean;
  /** Past TTL + budget + grace (or never expiring, held to the end): a finding, not a lease's expected cost. */
  beyond: boolean;
  /** Why the lock has no TTL (the grant's `noLease`); absent for a lease lock. */
  noLease?: string;
  text: string;
}

/** How late after the key's release a waiter may be granted: its poll interval and a round trip, on a busy machine. */
export const graceMs = (ttlMs: number): number => Math.max(100, 0.05 * ttlMs);

const ms = (ns: number): number => ns / 1e6;

export function orphanedLocks(
  history: History,
  grants: readonly DroppedGrant[],
  runTtlMs: number | null,
): OrphanedLock[] {
  const endNs = history.endTime;
  const out: OrphanedLock[] = [];
  for (const g of grants) {
    // A client whose acquire ended ok believes it holds: nothing orphaned (double-ownership.ts looks at those).
    if (g.completion?.type === 'ok') continue;
    const grant = nextGrant(history, g.account, g.droppedAt);
    const ttlEnd = g.pttlMs !== null && g.pttlMs >= 0 ? g.droppedAt + g.pttlMs * 1e6 : null;
    const [toNs, endedBy] =
      grant && (ttlEnd === null || grant.time <= ttlEnd)
        ? [grant.time, 'grant' as const]
        : ttlEnd !== null && ttlEnd <= endNs
          ? [ttlEnd, 'ttl' as const]
          : [endNs, 'run-end' as const];
    const ttlMs = g.noLease !== undefined ? null : (g.ttlMs ?? runTtlMs);
    const budgetMs = ms(Math.max(0, (g.completion?.time ?? endNs) - g.droppedAt));
    const durationMs = ms(toNs - g.droppedAt);
    const neverExpires = g.pttlMs === -1;
    const beyond =
      g.noLease !== undefined
        ? endedBy === 'run-end' || durationMs > budgetMs + graceMs(runTtlMs ?? 0)
        : ttlMs !== null && ((neverExpires && endedBy === 'run-end') || durationMs > ttlMs + budgetMs + graceMs(ttlMs));
    const o: OrphanedLock = {
      f: g.f,
      shot: g.shot,
      process: g.process,
      account: g.account,
      acquireIndex: g.acquire.index,
      fromMs: ms(g.droppedAt),
      toMs: ms(toNs),
      durationMs,
      endedBy,
      nextHolder: endedBy === 'grant' ? (grant!.process as number) : null,
      ttlMs,
      budgetMs,
      neverExpires,
      beyond,
      ...(g.noLease !== undefined ? { noLease: g.noLease } : {}),
      text: '',
    };
    o.text = orphanText(o, g);
    out.push(o);
  }
  return out;
}

function orphanText(o: OrphanedLock, g: DroppedGrant): string {
  const ttl =
    o.noLease !== undefined ? `no lease (${o.noLease})` : o.ttlMs === null ? 'no TTL known' : `TTL ${fmtSpan(o.ttlMs)}`;
  const how = g.completion ? `ended ${g.completion.type}` : 'never ended';
  const cause = `p${o.process}'s acquire #${o.acquireIndex} was granted (${g.held} on the server) but its reply was lost (${o.f} #${o.shot}) and it ${how}`;
  const until =
    o.endedBy === 'grant'
      ? `until p${o.nextHolder} was granted`
      : o.endedBy === 'ttl'
        ? 'until its TTL ran out'
        : `to the end of the run${o.neverExpires ? ' (its PTTL read -1: it never expires)' : ''}`;
  const head = `orphaned lock on account ${o.account} for ${fmtSpan(o.durationMs)}, ${ttl}: ${cause}; the server kept it ${until}`;
  if (o.noLease !== undefined)
    return o.beyond
      ? `${head} — past p${o.process}'s retry budget (${fmtSpan(o.budgetMs)}), and no TTL ends it: the session kept the lock after the client had given up`
      : `${head} — within p${o.process}'s retry budget (${fmtSpan(o.budgetMs)}): the session ended with its connection, and nothing else would have ended it (no TTL; over a dead path TCP's own timeouts decide)`;
  if (o.ttlMs === null) return head;
  return o.beyond
    ? `${head} — past the TTL plus p${o.process}'s retry budget (${fmtSpan(o.budgetMs)}): a lock no client holds that the server does not let go`
    : `${head} — within the TTL plus p${o.process}'s retry budget (${fmtSpan(o.budgetMs)}): a lease's expected cost`;
}
