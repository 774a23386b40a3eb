import { describe, expect, it } from 'vitest';
import { CHECK_ACQUIRE_TIMEOUT_MS, CHECK_TTL_MS, checkAcquireBudgetMs } from './lock-check-steps.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import type { LockRow } from '../locks/lock-row.ts';

/** How long lock-check lets a refused acquire take to say no: the check's budget, or the leases a row waits out. */
describe('checkAcquireBudgetMs', () => {
  it('is the check budget for a lock that answers a busy acquire at once', () => {
    expect(checkAcquireBudgetMs(undefined)).toBe(CHECK_ACQUIRE_TIMEOUT_MS);
  });

  it("adds the leases a row's busy acquire waits out: dynamodb-lock-client waits two of the check's 10 s leases", () => {
    // Red before: its refusal step had 2 s and the library was still in its first wait (lock-check FAILED 1 of 10).
    const waits = (LOCK_ROWS['dynamodb-lock-client'] as LockRow).busyAcquireWaits;
    expect(waits?.leases).toBe(2);
    expect(checkAcquireBudgetMs(waits)).toBe(2 * CHECK_TTL_MS + CHECK_ACQUIRE_TIMEOUT_MS);
  });

  it('a lock that never says no declares nothing: redis-lock keeps the check budget, and its check fails', () => {
    expect((LOCK_ROWS['redis-lock'] as LockRow).busyAcquireWaits).toBeUndefined();
  });
});
