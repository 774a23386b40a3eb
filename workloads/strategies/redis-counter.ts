import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from '../strategy.ts';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/** A toy: the single-Redis lock with an INCR counter as its token (monotonic while that one node keeps its memory). */
const redisCounter: LockStrategy = {
  name: 'redis-counter',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'monotonic',
  renews: false,
  defaultFaults: ['pause-holder', 'restart-empty'],
  async connect(ctx) {
    const redis = new Redis({ ...ctx.redis[0], maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    return {
      async acquire(key) {
        const owner = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          if ((await redis.set(`ctr-lock:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK') return { key, attempts, handle: owner, token: String(await redis.incr(`ctr:${key}`)) };
          if (performance.now() > deadline) throw new LockNotAcquired(`${key} is busy`, attempts);
          await sleep(10 + Math.random() * 20);
        }
      },
      async release(lease) {
        return (await redis.eval(RELEASE, 1, `ctr-lock:${lease.key}`, String(lease.handle))) === 1;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
export default redisCounter;
