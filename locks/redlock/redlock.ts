import { setTimeout as sleep } from 'node:timers/promises';
import { ownerTokens } from '../parts/owner-tokens.ts';
import { Redis } from 'ioredis';
import { LockNotAcquired, seededRandom, type LockStrategy } from '../strategy.ts';
import { redlockAcquire, redlockAttempt, type RedlockMaster } from './redlock-algorithm.ts';
import { EXTEND_IF_OWNER, RELEASE_IF_OWNER } from '../parts/redis-scripts.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';

/** Per-master timeout: small against the TTL, so one dead or paused master can't eat the validity window. */
const PER_NODE_TIMEOUT_MS = 50;

function master(r: Redis): RedlockMaster & { extend(key: string, value: string, ttlMs: number): Promise<boolean> } {
  return {
    async trySet(key, value, ttlMs) {
      return (await r.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async release(key, value) {
      await r.eval(RELEASE_IF_OWNER, 1, key, value).catch(() => {});
    },
    async extend(key, value, ttlMs) {
      return (await r.eval(EXTEND_IF_OWNER, 1, key, value, String(ttlMs)).catch(() => 0)) === 1;
    },
  };
}

/** Redlock over the 5 independent masters, implemented from the spec (see redlock-algorithm.ts). */
const redlock: LockStrategy = {
  name: 'redlock',
  needs: ['redis'],
  servers: { redis: 5 },
  token: 'none',
  noTokenReason:
    'Redlock has no monotonic fencing token (its values are random; Redis gives no counter that survives failover across 5 masters)',
  renews: true,
  // SET … PX on each master at or after the request, less Redlock's drift budget (driftFactor 0.01 × TTL + 2 ms).
  lease: { kind: 'ttl-from-request', driftFactor: REDLOCK_CLOCKS.maxRateError },
  // The spec's own caveats — pauses, restarts without persistence, clock jumps — plus a slow master.
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  async connect(ctx) {
    const clients = ctx.redis.map(
      (ep) =>
        new Redis({
          ...ep,
          lazyConnect: true,
          commandTimeout: PER_NODE_TIMEOUT_MS,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          // Masters come back after restarts: keep reconnecting in the background.
          retryStrategy: () => 50,
        }),
    );
    for (const c of clients) c.on('error', () => {});
    // A master that is down at start must not stop the client: Redlock only needs a majority.
    await Promise.all(clients.map((c) => c.connect().catch(() => {})));
    const masters = clients.map(master);
    const random = seededRandom(ctx.seed);
    const nextOwner = ownerTokens();
    return {
      async acquire(key) {
        const value = nextOwner();
        const res = await redlockAcquire(
          masters,
          `lock:${key}`,
          value,
          ctx.ttlMs,
          { now: () => Date.now() },
          {
            timeoutMs: ctx.acquireTimeoutMs,
            retryDelayMs: () => 10 + random() * 40,
            sleep: (ms) => sleep(ms),
            monotonicNow: () => performance.now(),
          },
        );
        if (!res.held)
          throw new LockNotAcquired(
            `no majority for lock:${key} after ${res.attempts} tries (last: ${res.okCount}/5 OK, validity ${res.validityMs.toFixed(0)} ms)`,
            res.attempts,
          );
        return { key, attempts: res.attempts, validityMs: Math.floor(res.validityMs), handle: value };
      },
      async renew(lease) {
        // Extension is a Redlock round of its own: held iff a majority extended within the validity window.
        const value = String(lease.handle);
        const attempt = await redlockAttempt(
          masters.map((m) => ({ trySet: (k, v, ttl) => m.extend(k, v, ttl), release: async () => {} })),
          `lock:${lease.key}`,
          value,
          ctx.ttlMs,
          { now: () => Date.now() },
        );
        return attempt.held;
      },
      async release(lease) {
        const value = String(lease.handle);
        const results = await Promise.all(
          clients.map((c) => c.eval(RELEASE_IF_OWNER, 1, `lock:${lease.key}`, value).catch(() => 0)),
        );
        return results.filter((r) => r === 1).length >= Math.floor(clients.length / 2) + 1;
      },
      async close() {
        for (const c of clients) c.disconnect();
      },
    };
  },
};
export default redlock;
