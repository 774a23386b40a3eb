/**
 * The Redlock algorithm as the spec states it, independent of Redis so its maths and its retry/release
 * behaviour can be tested on literal data:
 *
 *  1. note the start time (the *wall* clock, as implementations do — so clock faults reach it);
 *  2. try `SET key value NX PX ttl` on every master, each with a short timeout;
 *  3. elapsed = now − start; validity = ttl − elapsed − (driftFactor × ttl + 2 ms);
 *  4. held iff a majority answered OK and validity > 0;
 *  5. otherwise release on *all* masters (even those that seemed to fail: the SET may have landed after the
 *     timeout) and retry after a random delay.
 */
export interface RedlockMaster {
  /** `SET key value NX PX ttlMs` with the per-node timeout; resolves true iff OK. Errors count as not OK. */
  trySet(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Compare-and-delete; never throws. */
  release(key: string, value: string): Promise<void>;
}

export const DEFAULT_DRIFT_FACTOR = 0.01;

/** validity = ttl − elapsed − (drift × ttl + 2). The spec's worked example: (10 000, 120) → 9 778. */
export function redlockValidity(ttlMs: number, elapsedMs: number, driftFactor = DEFAULT_DRIFT_FACTOR): number {
  return ttlMs - elapsedMs - (driftFactor * ttlMs + 2);
}

export function quorum(masters: number): number {
  return Math.floor(masters / 2) + 1;
}

export interface RedlockAttempt {
  held: boolean;
  okCount: number;
  elapsedMs: number;
  validityMs: number;
}

export interface RedlockClock {
  /** Wall-clock milliseconds (Date.now in production). */
  now(): number;
}

/** One round of steps 1–5 (without the retry delay). */
export async function redlockAttempt(
  masters: RedlockMaster[],
  key: string,
  value: string,
  ttlMs: number,
  clock: RedlockClock,
  driftFactor = DEFAULT_DRIFT_FACTOR,
): Promise<RedlockAttempt> {
  const start = clock.now();
  const results = await Promise.all(masters.map((m) => m.trySet(key, value, ttlMs).catch(() => false)));
  const okCount = results.filter(Boolean).length;
  const elapsedMs = clock.now() - start;
  const validityMs = redlockValidity(ttlMs, elapsedMs, driftFactor);
  const held = okCount >= quorum(masters.length) && validityMs > 0;
  if (!held) await Promise.all(masters.map((m) => m.release(key, value).catch(() => {})));
  return { held, okCount, elapsedMs, validityMs };
}

export interface RedlockRetry {
  /** Give up once this many ms (monotonic) have passed since the first try. */
  timeoutMs: number;
  /** Random delay before the next try, in ms (seeded in production). */
  retryDelayMs: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Monotonic ms for the timeout, not the wall clock (a clock fault must not stretch the timeout). */
  monotonicNow: () => number;
}

export async function redlockAcquire(
  masters: RedlockMaster[],
  key: string,
  value: string,
  ttlMs: number,
  clock: RedlockClock,
  retry: RedlockRetry,
  driftFactor = DEFAULT_DRIFT_FACTOR,
): Promise<RedlockAttempt & { attempts: number }> {
  const deadline = retry.monotonicNow() + retry.timeoutMs;
  for (let attempts = 1; ; attempts++) {
    const attempt = await redlockAttempt(masters, key, value, ttlMs, clock, driftFactor);
    if (attempt.held || retry.monotonicNow() > deadline) return { ...attempt, attempts };
    await retry.sleep(retry.retryDelayMs());
  }
}
