import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Poll `probe` every `everyMs` until it returns something other than undefined, and return that; after `ms` without
 * one, throw naming `what` and the last thing it said. Tests wait for a state with this, never for a fixed time.
 */
export async function until<T>(what: string, probe: () => T | undefined, ms: number, everyMs = 20): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (performance.now() >= end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(everyMs);
  }
}
