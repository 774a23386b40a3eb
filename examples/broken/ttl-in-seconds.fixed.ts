// The correct twin of ttl-in-seconds.ts (diff the two files: the defect is the only difference): the TTL goes
// to PX in milliseconds. Under the run that breaks its twin (see `exposedBy` there) it stays VALID.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const ttlInSecondsFixed: LockStrategy = {
  name: 'fixed-ttl-in-seconds',
  needs: ['redis'],
  token: 'none',
  async connect(ctx) {
    const redis = new Redis({ ...ctx.redis[0], maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    return {
      async acquire(key) {
        const owner = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          // FIXED: PX takes milliseconds, and ctx.ttlMs is in milliseconds.
          if ((await redis.set(`broken:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK')
            return { key, attempts, handle: owner };
          if (performance.now() > deadline) throw new LockNotAcquired(`broken:${key} is busy`, attempts);
          await sleep(10 + Math.random() * 20);
        }
      },
      async release(lease) {
        return (await redis.eval(RELEASE, 1, `broken:${lease.key}`, String(lease.handle))) === 1;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
export default ttlInSecondsFixed;
