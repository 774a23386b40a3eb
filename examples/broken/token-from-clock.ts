// BROKEN ON PURPOSE — token generation: the "monotonic" fencing token is the wall clock in whole seconds.
//
// The defect: `token = Math.floor(Date.now() / 1000)`. A Unix timestamp looks monotonic, but two grants within
// the same second get the same token, and a fence that admits `token ≥ highest seen` (as it must: a holder
// writes after its own read) cannot tell the two holders apart. Timestamps as versions or fences are a common
// shortcut; the fix is a counter that the lock service increments per grant.
//
// Exposed by: its script (token-from-clock.scenario.json), the paused holder with --fencing after every client's
// wall clock was frozen in one second (clock-freeze-clients); in a free run pause-holder with --fencing and a short
// TTL (--ttl=300: the paused holder's lock expires and the next client is granted it, usually within the same second).
// The report shows: INVALID; each lost update is a pair of writes that carry the same token (seconds since
// 1970), the paused holder's and the next holder's, both accepted by the fence.
// The twin, token-from-clock.fixed.ts, takes the token from `INCR` on a counter next to the lock, once per
// grant: the resumed holder's older token is refused (stale writes rejected).
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  // The paused-holder story catches it only when the two grants read one wall-clock second: the script freezes every
  // client's wall clock first (clock-freeze-clients), so they always do.
  script: { scenario: './token-from-clock.scenario.json' },
  nemesis: 'pause-holder',
  args: ['--fencing', '--ttl=300', '--nemesis-interval=1000'],
};

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const tokenFromClock: LockStrategy = {
  name: 'broken-token-from-clock',
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
            // DEFECT: the clock in seconds repeats within a second, so successive holders can share a token.
            const token = String(Math.floor(Date.now() / 1000));
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
export default tokenFromClock;
