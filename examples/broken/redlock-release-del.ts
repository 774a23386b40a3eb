// BROKEN ON PURPOSE — release: Redlock's release is a plain `DEL`, without checking the owner.
//
// The defect: releasing sends `DEL key` to every master instead of the compare-and-delete script. The spec
// has a client that failed to reach a majority release on *all* masters (its SET may have landed after the
// timeout), so every losing attempt under contention deletes the winner's keys: the next client takes the
// lock while the winner is still in its critical section. An owner-blind release is the best-known Redis lock
// bug (the reason the spec prescribes the script); a paused or slow holder hits it too, but here no fault is
// even needed.
//
// Exposed by: no fault at all — 5 clients contending for one account.
// The report shows: INVALID; a lost update for most writes, with overlapping holds all along the timeline.
// The twin, redlock-release-del.fixed.ts, releases with compare-and-delete.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  script: { scenario: './redlock-release-del.scenario.json' },
  nemesis: 'none',
  args: [],
};

/** Per-master timeout, small against the TTL so a dead master can't eat the validity window (as the spec asks). */
const PER_NODE_TIMEOUT_MS = 50;
/** How long connect waits for a master that is not ready yet before going on without it. */
const READY_WAIT_MS = 5_000;

/** Resolves when the connection is ready, or after `ms` (never rejects: an 'error' meanwhile is a retry, not an end). */
function readyWithin(m: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    m.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
const DRIFT_FACTOR = 0.01;

const redlockReleaseDel: LockStrategy = {
  name: 'broken-redlock-release-del',
  needs: ['redis'],
  token: 'none',
  async connect(ctx) {
    const masters = ctx.redis.map(
      (ep) =>
        new Redis({
          ...ep,
          lazyConnect: true,
          commandTimeout: PER_NODE_TIMEOUT_MS,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          retryStrategy: () => 50,
        }),
    );
    for (const m of masters) m.on('error', () => {});
    // A master down at start must not stop the client: masters come back and reconnect in the background. But one
    // still connecting fails its SET at once (no offline queue), so each gets a bounded wait for 'ready': an acquire
    // on 3 of 5 masters right after start is not the lock a scenario strikes two of (CI saw the minority twin so).
    await Promise.all(masters.map((m) => m.connect().catch(() => {})));
    await Promise.all(masters.map((m) => (m.status === 'ready' ? null : readyWithin(m, READY_WAIT_MS))));
    // DEFECT: DEL removes the key whoever holds it; `value` is ignored.
    const releaseAll = (key: string, _value: string) => Promise.all(masters.map((m) => m.del(key).catch(() => 0)));
    return {
      async acquire(key) {
        const value = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          const start = Date.now();
          const ok = (
            await Promise.all(
              masters.map((m) => m.set(`broken:${key}`, value, 'PX', ctx.ttlMs, 'NX').catch(() => null)),
            )
          ).filter((r) => r === 'OK').length;
          const validityMs = ctx.ttlMs - (Date.now() - start) - (DRIFT_FACTOR * ctx.ttlMs + 2);
          if (ok >= Math.floor(masters.length / 2) + 1 && validityMs > 0)
            return { key, attempts, validityMs, handle: value };
          await releaseAll(`broken:${key}`, value);
          if (performance.now() > deadline)
            throw new LockNotAcquired(
              `broken:${key}: ${ok}/${masters.length} masters after ${attempts} tries`,
              attempts,
            );
          await sleep(10 + Math.random() * 40);
        }
      },
      async release(lease) {
        const released = await releaseAll(`broken:${lease.key}`, String(lease.handle));
        return released.filter((r) => r === 1).length > 0;
      },
      async close() {
        for (const m of masters) m.disconnect();
      },
    };
  },
};
export default redlockReleaseDel;
