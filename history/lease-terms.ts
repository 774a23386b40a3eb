/**
 * What the lock's lease certainly lasts, as the history can see it: the one fact the promise checker
 * (checkers/promise/) needs from the lock — declared by a strategy (locks/strategy.ts `lease`), recorded
 * in the test record, read back by the checker, and only a lower bound — a lease taken too long would blame the lock for
 * an overlap it never promised to prevent. Measured from the acquire's (or a renewal's) *invoke*: the server starts
 * a lease at or after the request arrives, never before the client asked.
 *
 * - `ttl-from-request`: the server starts `--ttl` (Redis `SET … PX`, a fresh etcd lease) at or after the request;
 *   `driftFactor`: the lock's stated clock-drift budget (Redlock's driftFactor × TTL + 2 ms) comes off it.
 * - `reported-from-request`: the acquire reports how long its lease certainly lives from its request (`validityMs`),
 *   and a session refreshed by heartbeats outside the history keeps it alive after: ZooKeeper's negotiated session
 *   timeout (every request refreshes the session), etcd's session lease as its client last saw it kept alive:
 *   invoke + that; a holder is late only when something stopped its heartbeats.
 * - `unknown`: kept alive outside the history (a session lease renewed by its own heartbeats, a database session):
 *   nothing certain can be read from the history; `why` says so, and the checker classifies its overlaps unknown.
 */
export type LeaseTerms =
  | { kind: 'ttl-from-request'; driftFactor?: number }
  | { kind: 'reported-from-request' }
  | { kind: 'unknown'; why: string };

/** What is wrong with a declared `lease` (LeaseTerms), one sentence each: a plugin's, or one read back from a test record. */
export function leaseProblems(lease: unknown): string[] {
  const l = (lease && typeof lease === 'object' ? lease : {}) as Record<string, unknown>;
  if (l.kind === 'reported-from-request') return [];
  if (l.kind === 'unknown') return typeof l.why === 'string' && l.why.trim() ? [] : ['`lease.why` must be a sentence'];
  if (l.kind !== 'ttl-from-request')
    return ["`lease.kind` must be 'ttl-from-request', 'reported-from-request' or 'unknown'"];
  const f = l.driftFactor;
  return f === undefined || (typeof f === 'number' && f >= 0 && f < 1)
    ? []
    : ['`lease.driftFactor` must be a number from 0 to below 1'];
}
