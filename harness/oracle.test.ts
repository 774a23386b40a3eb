import { describe, expect, it } from 'vitest';
import { inconclusive, observed, ORACLE_COLUMNS } from './oracle.ts';

describe('when a matrix cell runs again', () => {
  it('an expected anomaly that did not show is inconclusive: one short run is absence of evidence', () => {
    expect(inconclusive('lost', 'safe', false, 0)).toBe(true);
    expect(inconclusive('lost', 'lost', false, 0)).toBe(false);
  });

  it('a fenced run that stayed safe without a single refused write did not test the fence', () => {
    expect(inconclusive('safe', 'safe', true, 0)).toBe(true);
    expect(inconclusive('safe', 'safe', true, 5)).toBe(false);
  });

  it('a contradiction the other way is final: one lost update where "safe" was expected is a counterexample', () => {
    expect(inconclusive('safe', 'lost', false, 0)).toBe(false);
    expect(inconclusive('safe', 'lost', true, 0)).toBe(false);
    expect(inconclusive('safe', 'safe', false, 0)).toBe(false);
  });

  it('refusals and unknown verdicts are not rerun', () => {
    expect(inconclusive('refuse', 'refuse', true, 0)).toBe(false);
    expect(inconclusive('lost', 'unknown', false, 0)).toBe(false);
  });
});

describe('the oracle columns', () => {
  it('fire restart-empty often enough for a short run, and leave the other columns to --nemesis-interval', () => {
    expect(ORACLE_COLUMNS.find((c) => c.id === 'restart-empty')?.maxIntervalMs).toBe(500);
    expect(ORACLE_COLUMNS.filter((c) => c.maxIntervalMs !== undefined).map((c) => c.id)).toEqual(['restart-empty']);
  });

  it('read a run in the oracle\'s terms', () => {
    expect(observed({ exitCode: 254, lostUpdates: 0, valid: false })).toBe('refuse');
    expect(observed({ exitCode: 1, lostUpdates: 3, valid: false })).toBe('lost');
    expect(observed({ exitCode: 2, lostUpdates: 0, valid: 'unknown' })).toBe('unknown');
    expect(observed({ exitCode: 0, lostUpdates: 0, valid: true })).toBe('safe');
  });
});
