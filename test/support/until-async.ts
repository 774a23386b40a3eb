import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Poll the async `probe` every `everyMs` until it resolves to something other than undefined, and return that; after
 * `ms` without one, throw naming `what`. Tests wait for a state with this (a server answering), never a fixed time.
 */
export async function untilAsync<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms: number,
  everyMs = 50,
): Promise<T> {
  const end = performance.now() + ms;
  let last = '';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = `; last: ${(err as Error).message}`;
    }
    if (performance.now() >= end) throw new Error(`${what}: not within ${ms} ms${last}`);
    await sleep(everyMs);
  }
}
