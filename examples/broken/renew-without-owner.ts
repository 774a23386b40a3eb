// BROKEN ON PURPOSE — renewal: the watchdog extends the lock without asking whose it is.
//
// The defect: `renew` is a plain `PEXPIRE key ttl`, which succeeds whenever the key exists. A holder that was
// paused past its TTL comes back, its watchdog renews "successfully" — extending the lock another client now
// holds — and it goes on to write from its stale read. Owner-blind extension shipped in hand-rolled
// Redisson-style watchdogs; the fix is the owner-checked extend script.
//
// Exposed by: pause-holder with --watchdog, the pause between the TTL and the think time (--ttl=300
// --pause=450 --think=700): the holder resumes before its write is due, and its first renewal decides.
// The report shows: INVALID; each lost update names the resumed holder's write, based on a read from before
// the pause, erased by (or erasing) the write of the client that took the expired lock meanwhile; its
// watchdog lane shows `renew` ok right after the pause band.
// The twin, renew-without-owner.fixed.ts, renews only its own value: the renewal fails (lock-lost) and the
// resumed holder skips its write.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  // The shipped story of the late renewal is this lock's: scenarios/watchdog-late-renewal.json names it.
  script: { scenario: '../../scenarios/watchdog-late-renewal.json' },
  nemesis: 'pause-holder',
  args: ['--watchdog', '--ttl=300', '--pause=450', '--think=700', '--nemesis-interval=1000', '--time-limit=10'],
};

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const renewWithoutOwner: LockStrategy = {
  name: 'broken-renew-without-owner',
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
          if ((await redis.set(`broken:${key}`, owner, 'PX', ctx.ttlMs, 'NX')) === 'OK')
            return { key, attempts, handle: owner };
          if (performance.now() > deadline) throw new LockNotAcquired(`broken:${key} is busy`, attempts);
          await sleep(10 + Math.random() * 20);
        }
      },
      async renew(lease) {
        // DEFECT: extends whoever holds the key now, and reports success to a holder that lost it.
        return (await redis.pexpire(`broken:${lease.key}`, ctx.ttlMs)) === 1;
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
export default renewWithoutOwner;
