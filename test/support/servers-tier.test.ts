import { afterEach, describe, expect, it } from 'vitest';
import { requireServersTier } from './servers-tier.ts';

describe('requireServersTier', () => {
  const saved = process.env.FENCEPOST_TEST_TIER;
  afterEach(() => {
    process.env.FENCEPOST_TEST_TIER = saved;
  });

  it('runs in the unit tier, so it refuses there, naming the rule', () => {
    expect(process.env.FENCEPOST_TEST_TIER).toBe('unit');
    expect(() => requireServersTier('runNemesis')).toThrow(/runNemesis boots real servers.*\*\.servers\.test\.ts/);
  });

  it('lets the servers tier (no FENCEPOST_TEST_TIER) through', () => {
    delete process.env.FENCEPOST_TEST_TIER;
    expect(() => requireServersTier('runNemesis')).not.toThrow();
  });
});
