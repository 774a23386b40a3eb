import { setTimeout as sleep } from 'node:timers/promises';
import type { Lease, LockClient } from '../../locks/strategy.ts';

/**
 * The contention scenario every strategy test runs: `a` holds `key`, `b` asks for it and must still be waiting
 * after `waitMs`; then `a` releases. Returns both leases, whether `b` was (wrongly) done early, whether the
 * release found the lock still `a`'s, and how long after the release `b` got it.
 */
export async function handOver(
  a: LockClient,
  b: LockClient,
  key: string,
  waitMs = 500,
): Promise<{ first: Lease; second: Lease; secondDoneEarly: boolean; released: boolean; wokeAfterMs: number }> {
  const first = await a.acquire(key);
  let done = false;
  const pending = b.acquire(key).then((l) => ((done = true), l));
  await sleep(waitMs);
  const secondDoneEarly = done;
  const releasedAt = performance.now();
  const released = await a.release(first);
  const second = await pending;
  return { first, second, secondDoneEarly, released, wokeAfterMs: performance.now() - releasedAt };
}
