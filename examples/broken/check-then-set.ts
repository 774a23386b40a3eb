// BROKEN ON PURPOSE — acquire: "is it free? then take it" in two commands.
//
// The defect: acquire asks `GET` and, seeing no holder, sends `SET … PX` (without NX). Two clients that both
// see the key free between those two round trips both "win"; the second SET silently overwrites the first
// owner. Hand-rolled locks shipped like this before SET grew its NX/PX options (and `SETNX` + `EXPIRE` was
// the advice).
//
// Exposed by: its script (check-then-set.scenario.json), which holds A's SET in flight, after A's GET, while B
// acquires; in a free run no fault at all — 5 clients contending for one account are enough, by chance.
// The report shows: INVALID, lost updates (each with the write that erased it) and confirmed overlaps of two
// clients' lock-holding intervals on the timeline.
// The twin, check-then-set.fixed.ts, is the same file with one atomic `SET key owner NX PX ttl`.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  // Its window lies inside one acquire, between its GET and its SET: the script holds A's SET in flight
  // (hold-request) while B checks and sets, then delivers it.
  script: { scenario: './check-then-set.scenario.json' },
  nemesis: 'none',
  args: [],
};

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const checkThenSet: LockStrategy = {
  name: 'broken-check-then-set',
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
          // DEFECT: check, then set — another client can pass the same check before our SET lands.
          if ((await redis.get(`broken:${key}`)) === null) {
            await redis.set(`broken:${key}`, owner, 'PX', ctx.ttlMs);
            return { key, attempts, handle: owner };
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
export default checkThenSet;
