// The correct twin of redlock-release-del.ts (diff the two files: the defect is the only difference): release
// deletes a key only if it still holds our value. Under the run that breaks its twin (see `exposedBy` there) it
// stays VALID.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
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

const redlockReleaseDelFixed: LockStrategy = {
  name: 'fixed-redlock-release-del',
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
    // FIXED: compare-and-delete — only our own value is removed, whoever else holds the key keeps it.
    const releaseAll = (key: string, value: string) =>
      Promise.all(masters.map((m) => m.eval(RELEASE, 1, key, value).catch(() => 0)));
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
export default redlockReleaseDelFixed;
