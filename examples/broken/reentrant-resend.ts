// BROKEN ON PURPOSE — acquire: a reentrant hold count, resent after a reply timeout.
//
// The lock is Redisson's RLock shape: a hash under the lock's key, one field per owner (`<client id>:<thread>`)
// holding how many times that owner took it; acquire adds one when the key is free or already the owner's
// (`HINCRBY`), release takes one off and deletes the key at zero. The defect: a script whose reply timed out is sent
// again, as it was, on a fresh connection — as a client resends a command that it believes the network lost. But a
// lost reply is not a lost request: the first script ran, and the second finds the owner's field already there and
// takes the reentrant branch. One logical acquire counts 2, the one release leaves 1, and the lock is held until its
// TTL by a client that believes it released it — redisson/redisson #7367 (2026-09, "one tryLock ends with hold
// count 2 and the lock is never released": the acquire script resent after a response timeout in replicated mode).
//
// Exposed by: its script (reentrant-resend.scenario.json): reply-loss-acquire drops the reply to A's acquire
// script, A resends it and is granted, reads, writes and releases while B waits; B is granted only once the TTL ran
// out. A liveness finding, not a lost update: the verdict is VALID, and the lost-replies checker says "double
// ownership … held twice, released once" (the count of two) and "never released" (the release that left the key).
// The twin, reentrant-resend.fixed.ts, gives every logical acquire a request id that the script remembers under the
// owner: a resent acquire finds its own request already counted and is granted without counting it again.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  // Its window is one lost reply: the script drops the reply to A's acquire (the request reached Redis and ran).
  script: { scenario: './reentrant-resend.scenario.json' },
  nemesis: 'reply-loss-acquire',
  args: [],
};

// Redisson's lock script: free, or already ours → count one more and set the lease; else the holder's PTTL.
const LOCK = `if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])`;
// Redisson's unlock script: not ours → nil; one less, and the key deleted at zero (1) or its lease renewed (0).
const UNLOCK = `if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then return nil end
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[1]) return 0 end
redis.call('del', KEYS[1])
return 1`;
/** How long a command waits for its reply, and how many times it is sent in all. */
const COMMAND_TIMEOUT_MS = 500;
const SENDS = 3;

const reentrantResend: LockStrategy = {
  name: 'broken-reentrant-resend',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  async connect(ctx) {
    const open = () => {
      const r = new Redis({ ...ctx.redis[0], commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1 });
      r.on('error', () => {});
      return r;
    };
    let redis = open();
    // The owner, as Redisson names it: the client's id and the thread's.
    const owner = `${crypto.randomUUID()}:1`;
    const send = async (script: string, key: string, args: string[]): Promise<unknown> => {
      for (let sent = 1; ; sent++) {
        try {
          return await redis.eval(script, 1, `broken:${key}`, ...args);
        } catch (err) {
          if (sent >= SENDS || !/timed out/i.test(String(err))) throw err;
          // DEFECT: the same script again, on a fresh connection — though the one whose reply was lost may have run.
          redis.disconnect();
          redis = open();
        }
      }
    };
    return {
      async acquire(key) {
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          if ((await send(LOCK, key, [String(ctx.ttlMs), owner])) === null) return { key, attempts, handle: owner };
          if (performance.now() > deadline) throw new LockNotAcquired(`broken:${key} is busy`, attempts);
          await sleep(10 + Math.random() * 20);
        }
      },
      async release(lease) {
        return (await send(UNLOCK, lease.key, [String(ctx.ttlMs), owner])) !== null;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
export default reentrantResend;
