import { describe, expect, it } from 'vitest';
import { clockAssumptionLines } from './clock-assumption-line.ts';

describe("the run summary's clock line", () => {
  it('names the rate against the stated assumption for a rate fault on a lock that states one', () => {
    expect(clockAssumptionLines({ lock: 'redlock-v4', clockRate: 0.5 }, ['clock-rate-client'])).toEqual([
      "  clock: --clock-rate=0.5 is beyond redlock-v4's stated assumption (rates within 0.99–1.01: the Redlock page's drift budget (driftFactor 0.01)): a loss here is the assumption failing, as stated",
    ]);
    expect(clockAssumptionLines({ lock: 'redlock-v4', clockRate: 0.5 }, ['pause-holder'])).toEqual([]);
    expect(clockAssumptionLines({ lock: 'redis-semaphore', clockRate: 0.6 }, ['clock-rate-client'])).toEqual([]);
    expect(clockAssumptionLines({ lock: './my-lock.ts', clockRate: 0.6 }, ['clock-rate'])).toEqual([]);
  });
});
