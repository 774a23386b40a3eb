import { setTimeout as sleep } from 'node:timers/promises';
import { ownerTokens } from '../parts/owner-tokens.ts';
import { Redis } from 'ioredis';
import { LockNotAcquired, seededRandom, type LockStrategy } from '../strategy.ts';
import { EXTEND_IF_OWNER, RELEASE_IF_OWNER } from '../parts/redis-scripts.ts';

/**
 * Single Redis: `SET key <random owner token> NX PX <ttl>`, release by compare-and-delete. Correct as long as
 * the one node keeps its memory and its clock and the holder is never paused past the TTL — the oracle's
 * "safe with no fault, lost under every one".
 */
const redis: LockStrategy = {
  name: 'redis',
  needs: ['redis'],
  // One node: the faults aim at the only Redis there is, not at four bystanders.
  servers: { redis: 1 },
  token: 'none',
  noTokenReason:
    'a Redis lock value is a random owner token, not a monotonic counter: the resource cannot tell an old holder from a new one',
  renews: true,
  // SET … PX at or after the request: invoke + TTL is the key's shortest life (docs/checkers.md#the-locks-promise).
  lease: { kind: 'ttl-from-request' },
  // Lost under a paused holder, a restart without the key, a clock jump, and a failover.
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'failover'],
  async connect(ctx) {
    const r = new Redis({
      ...ctx.redis[0],
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      commandTimeout: 500,
      retryStrategy: () => 50,
    });
    r.on('error', () => {});
    await r.connect();
    const random = seededRandom(ctx.seed);
    const nextOwner = ownerTokens();
    return {
      async acquire(key) {
        const owner = nextOwner();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          if ((await r.set(`lock:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK')
            return { key, attempts, validityMs: ctx.ttlMs, handle: owner };
          if (performance.now() > deadline)
            throw new LockNotAcquired(`lock:${key} still held by another owner after ${attempts} tries`, attempts);
          await sleep(5 + random() * 20);
        }
      },
      async renew(lease) {
        return (await r.eval(EXTEND_IF_OWNER, 1, `lock:${lease.key}`, String(lease.handle), String(ctx.ttlMs))) === 1;
      },
      async release(lease) {
        return (await r.eval(RELEASE_IF_OWNER, 1, `lock:${lease.key}`, String(lease.handle))) === 1;
      },
      async close() {
        r.disconnect();
      },
    };
  },
};
export default redis;
