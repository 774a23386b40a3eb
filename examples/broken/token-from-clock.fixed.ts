// The correct twin of token-from-clock.ts (diff the two files: the defect is the only difference): the fencing
// token is an `INCR` per grant. Under the run that breaks its twin (see `exposedBy` there) it stays VALID.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const tokenFromClockFixed: LockStrategy = {
  name: 'fixed-token-from-clock',
  needs: ['redis'],
  token: 'monotonic',
  async connect(ctx) {
    const redis = new Redis({ ...ctx.redis[0], maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    return {
      async acquire(key) {
        const owner = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          if ((await redis.set(`broken:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK') {
            // FIXED: one increment per grant, by the lock's own server: every holder's token exceeds the last.
            const token = String(await redis.incr(`broken:${key}:fence`));
            return { key, token, attempts, handle: owner };
          }
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
export default tokenFromClockFixed;
