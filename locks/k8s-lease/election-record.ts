/**
 * The pure part of client-go's leader election (kubernetes/client-go at 32ce75a7, tools/leaderelection/
 * leaderelection.go and resourcelock/interface.go): the record a Lease holds, what a candidate remembers of it, and the
 * decisions `tryAcquireOrRenew` and `tryRelease` take from them. No I/O and no clock of its own: every time is passed
 * in, so the rules are tested on literal data (election-record.test.ts) and the elector (leader-elector.ts) only does
 * the calls in client-go's order.
 */

/**
 * client-go's LeaderElectionRecord as this row stores it, one JSON value per account in etcd. Two departures, both of
 * scale: the lease duration is in ms (`leaseDurationMs`; client-go's `leaseDurationSeconds` is whole seconds, and this
 * row's LeaseDuration is the run's TTL, 1–2 s), and the times are RFC 3339 with milliseconds. client-go compares the
 * record as json.Marshal renders it, where metav1.Time keeps whole seconds — enough against its 2 s RetryPeriod, since
 * every renewal then lands in a new second; at a RetryPeriod of TTL/7.5 (133–267 ms) whole seconds would hide most
 * renewals from the candidates, so the times here keep the precision that makes each renewal a change, as in client-go.
 */
export interface ElectionRecord {
  /** Who holds the lease; empty after a release (any candidate may take it at once). */
  holderIdentity: string;
  leaseDurationMs: number;
  /** The holder's wall clock when it took the lease and when it last renewed it: never compared, only changed. */
  acquireTime: string;
  renewTime: string;
  /** Grows by one on every change of holder: the row's fencing token. */
  leaderTransitions: number;
}

/** client-go's three durations, scaled from its defaults (15 s / 10 s / 2 s) to the run's TTL. */
export interface ElectionTimings {
  /** How long a candidate waits, on its own clock, without seeing the record change before it may take it. */
  leaseDurationMs: number;
  /** How long the holder keeps retrying a failed renewal before it stops leading. */
  renewDeadlineMs: number;
  /** The wait between tries, of a candidate and of the holder. */
  retryPeriodMs: number;
}

/** client-go's JitterFactor: a candidate waits RetryPeriod × (1 + 1.2 × random) between tries. */
export const JITTER_FACTOR = 1.2;

/**
 * client-go's defaults in proportion to the TTL: LeaseDuration = TTL, RenewDeadline = ⅔ TTL (10/15), RetryPeriod =
 * TTL / 7.5 (2/15). Checked as NewLeaderElector checks its config, so a TTL too short to scale is refused, not bent.
 */
export function electionTimings(ttlMs: number): ElectionTimings {
  const t = {
    leaseDurationMs: ttlMs,
    renewDeadlineMs: Math.round((ttlMs * 2) / 3),
    retryPeriodMs: Math.round(ttlMs / 7.5),
  };
  if (t.leaseDurationMs <= t.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs)
    throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (t.retryPeriodMs < 1) throw new Error(`retryPeriod must be greater than zero (TTL ${ttlMs} ms is too short)`);
  return t;
}

/** wait.Jitter: `period` plus up to `factor` × period more, `random` in [0, 1). */
export const jittered = (periodMs: number, random: number, factor = JITTER_FACTOR): number =>
  periodMs + random * factor * periodMs;

/**
 * What one elector last saw of the record: the record, its bytes, and `atMs` — the elector's *own* monotonic clock
 * when the bytes last changed (client-go's observedTime, from clock.RealClock: Go's monotonic reading).
 */
export interface Observation {
  readonly record: ElectionRecord | null;
  readonly raw: string | null;
  readonly atMs: number;
}

export const NOTHING_OBSERVED: Observation = { record: null, raw: null, atMs: 0 };

/**
 * Step 3 of tryAcquireOrRenew: a record read from the server replaces the observation only when its bytes differ, and
 * only then does the clock restart. Unchanged bytes keep the old `atMs`: that is how a candidate tells that nobody
 * renewed — whatever the timestamps inside say, as the package comment promises ("only uses their change").
 */
export function observeRead(prev: Observation, raw: string, record: ElectionRecord, nowMs: number): Observation {
  return prev.raw === raw ? prev : { record, raw, atMs: nowMs };
}

/**
 * setObservedRecord after the elector's own write: the record it wrote, stamped now. client-go leaves
 * observedRawRecord as the last read's bytes, so the next read of its own record counts as a change.
 */
export const observeWrite = (prev: Observation, record: ElectionRecord, nowMs: number): Observation => ({
  record,
  raw: prev.raw,
  atMs: nowMs,
});

/** IsLeader: the last observed record names this elector — its belief, not the server's current state. */
export const isLeader = (obs: Observation, identity: string): boolean => obs.record?.holderIdentity === identity;

/** isLeaseValid: observedTime + the observed record's lease duration is still ahead of `nowMs` (strictly). */
export const isLeaseValid = (obs: Observation, nowMs: number): boolean =>
  obs.record !== null && obs.atMs + obs.record.leaseDurationMs > nowMs;

/**
 * The rule of step 3: another holder's lease that has not run out on this elector's clock keeps it out. An empty
 * holder (released) is free at once; a lease whose record has not changed for LeaseDuration is free.
 */
export const heldByAnother = (obs: Observation, identity: string, nowMs: number): boolean =>
  !!obs.record?.holderIdentity && isLeaseValid(obs, nowMs) && !isLeader(obs, identity);

/**
 * What tryAcquireOrRenew writes over `old` (step 4): this elector as holder, renewTime now; a leader keeps its
 * acquireTime and transitions, anyone else starts a term and counts one more transition.
 */
export function nextRecord(
  old: ElectionRecord,
  leader: boolean,
  identity: string,
  leaseDurationMs: number,
  wallNow: string,
): ElectionRecord {
  return {
    holderIdentity: identity,
    leaseDurationMs,
    acquireTime: leader ? old.acquireTime : wallNow,
    renewTime: wallNow,
    leaderTransitions: leader ? old.leaderTransitions : old.leaderTransitions + 1,
  };
}

/** The record the first elector creates when there is none (step 2): transitions start at 0. */
export const firstRecord = (identity: string, leaseDurationMs: number, wallNow: string): ElectionRecord => ({
  holderIdentity: identity,
  leaseDurationMs,
  acquireTime: wallNow,
  renewTime: wallNow,
  leaderTransitions: 0,
});

/** client-go writes `LeaseDurationSeconds: 1` on release, whatever its config: 1 s. */
export const RELEASED_LEASE_MS = 1000;

/**
 * tryRelease's record: no holder, a 1 s lease, the transitions of the record just read. Written only when the elector
 * `isLeader` by its *last observation* — not by the record the release just read, which it does not look at — so an
 * elector that has not yet seen its successor overwrites the successor's record.
 */
export const releaseRecord = (read: ElectionRecord, wallNow: string): ElectionRecord => ({
  holderIdentity: '',
  leaseDurationMs: RELEASED_LEASE_MS,
  acquireTime: wallNow,
  renewTime: wallNow,
  leaderTransitions: read.leaderTransitions,
});

/** The record's stored bytes: fixed key order, so equal records are equal bytes. */
export const recordBytes = (r: ElectionRecord): string =>
  JSON.stringify({
    holderIdentity: r.holderIdentity,
    leaseDurationMs: r.leaseDurationMs,
    acquireTime: r.acquireTime,
    renewTime: r.renewTime,
    leaderTransitions: r.leaderTransitions,
  });
