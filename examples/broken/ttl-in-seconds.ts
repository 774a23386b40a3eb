// BROKEN ON PURPOSE — expiry: the TTL is converted to seconds and handed to an option that takes milliseconds.
//
// The defect: `SET key owner NX PX <ttlMs / 1000>`. The author thought in `EX` (seconds) and wrote `PX`: a
// 2 000 ms lock lives 2 ms, so it is free again long before the holder writes. Unit mix-ups between seconds
// and milliseconds in lock TTLs are a classic (`EXPIRE` takes seconds, `PEXPIRE` milliseconds).
//
// Exposed by: no fault at all — every critical section (read, --think ms, write) outlives a 2 ms lock.
// The report shows: INVALID, lost updates, and overlapping holds where the next client acquired a few ms
// after the previous one, while that one was still thinking.
// The twin, ttl-in-seconds.fixed.ts, passes the TTL in the unit PX expects.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  script: { scenario: './ttl-in-seconds.scenario.json' },
  nemesis: 'none',
  args: [],
};

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const ttlInSeconds: LockStrategy = {
  name: 'broken-ttl-in-seconds',
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
          // DEFECT: ctx.ttlMs is milliseconds already; divided by 1000 it makes PX a 2 ms lease.
          if ((await redis.set(`broken:${key}`, owner, 'PX', Math.ceil(ctx.ttlMs / 1000), 'NX')) === 'OK')
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
export default ttlInSeconds;
