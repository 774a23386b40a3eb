import { describe, expect, it } from 'vitest';
import {
  electionTimings,
  heldByAnother,
  isLeaseValid,
  jittered,
  nextRecord,
  NOTHING_OBSERVED,
  observeRead,
  observeWrite,
  recordBytes,
  releaseRecord,
  type ElectionRecord,
  type Observation,
} from './election-record.ts';

const A = 'client-0_1200-aaaa';
const B = 'client-1_1300-bbbb';

const held = (holder: string, renewTime: string, transitions = 3): ElectionRecord => ({
  holderIdentity: holder,
  leaseDurationMs: 2000,
  acquireTime: '2026-12-06T15:00:00.000Z',
  renewTime,
  leaderTransitions: transitions,
});

/** What B observes after reading `records` at the given times of its own clock, in order. */
function observed(reads: [ElectionRecord, number][]): Observation {
  return reads.reduce<Observation>((obs, [r, at]) => observeRead(obs, recordBytes(r), r, at), NOTHING_OBSERVED);
}

describe("client-go's timings scaled to the TTL", () => {
  it('are 15 s / 10 s / 2 s in proportion: LeaseDuration = TTL, RenewDeadline = ⅔, RetryPeriod = TTL/7.5', () => {
    expect(electionTimings(15_000)).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(electionTimings(2_000)).toEqual({ leaseDurationMs: 2_000, renewDeadlineMs: 1_333, retryPeriodMs: 267 });
    expect(electionTimings(1_000)).toEqual({ leaseDurationMs: 1_000, renewDeadlineMs: 667, retryPeriodMs: 133 });
  });

  it('refuse a TTL too short to scale, as NewLeaderElector refuses its config', () => {
    expect(() => electionTimings(3)).toThrow('retryPeriod must be greater than zero');
  });

  it('wait RetryPeriod to 2.2 × RetryPeriod between a candidate’s tries (JitterFactor 1.2)', () => {
    expect([jittered(267, 0), jittered(267, 0.5), jittered(267, 0.999)].map(Math.round)).toEqual([267, 427, 587]);
  });
});

describe('when a candidate may take the lease (tryAcquireOrRenew, step 3)', () => {
  it('not while the holder’s record keeps changing: each change restarts LeaseDuration on the candidate’s clock', () => {
    const obs = observed([
      [held(A, '2026-12-06T15:00:01.000Z'), 100],
      [held(A, '2026-12-06T15:00:01.267Z'), 1_500],
    ]);
    expect(obs.atMs).toBe(1_500);
    expect(heldByAnother(obs, B, 3_499)).toBe(true);
    expect(heldByAnother(obs, B, 3_500)).toBe(false);
  });

  it('once the bytes stayed the same for LeaseDuration, whatever the times inside them say', () => {
    const stale = held(A, '2099-01-01T00:00:00.000Z');
    const obs = observed([
      [stale, 100],
      [stale, 1_000],
      [stale, 2_000],
    ]);
    expect(obs.atMs).toBe(100);
    expect(heldByAnother(obs, B, 2_099)).toBe(true);
    expect(heldByAnother(obs, B, 2_101)).toBe(false);
  });

  it('at once after a release: the empty holder keeps nobody out', () => {
    const obs = observed([[releaseRecord(held(A, '2026-12-06T15:00:01.000Z'), '2026-12-06T15:00:02.000Z'), 100]]);
    expect(heldByAnother(obs, B, 100)).toBe(false);
  });

  it('never by its own record: an elector named holder renews it', () => {
    expect(heldByAnother(observed([[held(B, '2026-12-06T15:00:01.000Z'), 100]]), B, 150)).toBe(false);
  });

  it('with a frozen wall clock, a holder’s renewals rewrite the same bytes: after LeaseDuration they look stopped', () => {
    const frozen = held(A, '2026-12-06T15:00:01.000Z');
    const obs = observed([
      [frozen, 0],
      [frozen, 1_000],
      [frozen, 2_001],
    ]);
    expect(heldByAnother(obs, B, 2_001)).toBe(false);
  });
});

describe('what the elector writes (step 4) and the token it gets', () => {
  const old = held(A, '2026-12-06T15:00:01.000Z', 3);

  it('a new holder starts a term: transitions + 1, acquireTime now', () => {
    expect(nextRecord(old, false, B, 2000, '2026-12-06T15:00:05.000Z')).toEqual({
      holderIdentity: B,
      leaseDurationMs: 2000,
      acquireTime: '2026-12-06T15:00:05.000Z',
      renewTime: '2026-12-06T15:00:05.000Z',
      leaderTransitions: 4,
    });
  });

  it('the leader renews: its acquireTime and transitions stay, renewTime moves', () => {
    expect(nextRecord(old, true, A, 2000, '2026-12-06T15:00:05.000Z')).toMatchObject({
      acquireTime: '2026-12-06T15:00:00.000Z',
      renewTime: '2026-12-06T15:00:05.000Z',
      leaderTransitions: 3,
    });
  });

  it('a release keeps the transitions of the record it read, with no holder and a 1 s lease', () => {
    expect(releaseRecord(held(B, '2026-12-06T15:00:04.000Z', 7), '2026-12-06T15:00:05.000Z')).toEqual({
      holderIdentity: '',
      leaseDurationMs: 1000,
      acquireTime: '2026-12-06T15:00:05.000Z',
      renewTime: '2026-12-06T15:00:05.000Z',
      leaderTransitions: 7,
    });
  });
});

describe('when the holder steps down (isLeaseValid of its own last write)', () => {
  it('its fast path lasts LeaseDuration after its last successful write; past it, it must read again', () => {
    const after = observeWrite(NOTHING_OBSERVED, held(A, '2026-12-06T15:00:01.000Z'), 10_000);
    expect(isLeaseValid(after, 11_999)).toBe(true);
    expect(isLeaseValid(after, 12_000)).toBe(false);
  });

  it('after its own write, the next read of that record counts as a change (client-go keeps the old raw bytes)', () => {
    const mine = held(A, '2026-12-06T15:00:01.000Z');
    const before = observed([[held(A, '2026-12-06T15:00:00.500Z'), 0]]);
    const wrote = observeWrite(before, mine, 500);
    expect(observeRead(wrote, recordBytes(mine), mine, 900).atMs).toBe(900);
  });
});
