import { setTimeout as sleep } from 'node:timers/promises';

/** What a probe says while the state is not there yet: nothing, or false. Anything else is the state, returned. */
type NotYet = undefined | false;

/**
 * Poll `probe` (sync or async) every `everyMs` until it gives something other than `undefined` or `false`, and return
 * that. A probe that throws has not got there yet either. After `ms` without the state, throw naming `what` was
 * awaited and the last thing the probe said (its value or its error), so a red test says how far the other side got.
 * Tests wait for a state with this, never for a fixed time (testcontainers' `IntervalRetry.retryUntil`).
 */
export async function eventually<T>(
  what: string,
  probe: () => T | Promise<T>,
  ms: number,
  everyMs = 20,
): Promise<Exclude<T, NotYet>> {
  const end = performance.now() + ms;
  let last = 'nothing yet';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as Exclude<T, NotYet>;
      last = `it gave ${String(v)}`;
    } catch (err) {
      last = `it threw: ${(err as Error).message}`;
    }
    if (performance.now() >= end) throw new Error(`${what}: not within ${ms} ms (last: ${last})`);
    await sleep(everyMs);
  }
}
