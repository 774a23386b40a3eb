import { describe, expect, it } from 'vitest';
import { rateAgainstAssumption, REDLOCK_CLOCKS } from './clock-assumption.ts';
import { runRateAgainstAssumption } from './run-clock-assumption.ts';

describe("a clock rate against a lock's stated assumption", () => {
  it('beyond Redlock’s 0.01 at r = 0.5 and r = 1.05; inside at 0.99, 1 and 1.01', () => {
    expect(rateAgainstAssumption('redlock-v4', 0.5, REDLOCK_CLOCKS)).toBe(
      "--clock-rate=0.5 is beyond redlock-v4's stated assumption (rates within 0.99–1.01: the Redlock page's drift budget (driftFactor 0.01)): a loss here is the assumption failing, as stated",
    );
    expect(rateAgainstAssumption('redlock-v4', 1.05, REDLOCK_CLOCKS)).toMatch(/is beyond/);
    for (const r of [0.99, 1, 1.01])
      expect(rateAgainstAssumption('redlock-v4', r, REDLOCK_CLOCKS), String(r)).toMatch(
        /is inside redlock-v4's stated assumption .*: a loss here is a bug in the lock, not the assumption$/,
      );
  });

  it('says nothing for a lock that states none', () => {
    expect(rateAgainstAssumption('redis-semaphore', 0.6, undefined)).toBeNull();
  });
});

describe("a run's rate against its lock's stated assumption", () => {
  it('names the rate against the stated assumption for a rate fault on a lock that states one', () => {
    expect(runRateAgainstAssumption('redlock-v4', 0.5, ['clock-rate-client'])).toEqual(
      "--clock-rate=0.5 is beyond redlock-v4's stated assumption (rates within 0.99–1.01: the Redlock page's drift budget (driftFactor 0.01)): a loss here is the assumption failing, as stated",
    );
    expect(runRateAgainstAssumption('redlock-v4', 0.5, ['pause-holder'])).toBeNull();
    expect(runRateAgainstAssumption('redis-semaphore', 0.6, ['clock-rate-client'])).toBeNull();
    expect(runRateAgainstAssumption('./my-lock.ts', 0.6, ['clock-rate'])).toBeNull();
  });
});
