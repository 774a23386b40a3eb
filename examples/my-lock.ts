// A complete lock strategy plugin: `npm run jepsen -- --lock=./examples/my-lock.ts`.
// It is the example of docs/your-lock.md and the starter `fencepost init` writes, kept here so a test runs it.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const myLock: LockStrategy = {
  name: 'my-lock',
  needs: ['redis'], // the harness starts these servers; Postgres (the resource) always runs
  servers: { redis: 1 }, // one Redis node: this lock uses ctx.redis[0] alone (without it a run boots 5)
  token: 'none', // no fencing token: --fencing will be refused
  async connect(ctx) {
    const redis = new Redis({ ...ctx.redis[0], maxRetriesPerRequest: 1 });
    redis.on('error', () => {}); // faults make errors; the harness records them as ops
    return {
      async acquire(key) {
        const owner = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          if ((await redis.set(`my:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK')
            return { key, attempts, handle: owner };
          if (performance.now() > deadline) throw new LockNotAcquired(`${key} is busy`, attempts);
          await sleep(10 + Math.random() * 20);
        }
      },
      async release(lease) {
        return (await redis.eval(RELEASE, 1, `my:${lease.key}`, String(lease.handle))) === 1;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
export default myLock;
