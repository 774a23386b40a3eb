import type { LockClient } from '../strategy.ts';

/** A client that takes nothing: for strategies whose safety (or lack of it) lives elsewhere. */
export function noLockClient(): LockClient {
  return {
    async acquire(key) {
      return { key, attempts: 1 };
    },
    async release() {
      return true;
    },
    async close() {},
  };
}
