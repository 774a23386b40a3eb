// The correct twin of reentrant-resend.ts (diff the two files: the defect is the only difference): every logical
// acquire carries a request id, which the lock script keeps under the owner (`<owner>:request`). A resent acquire
// finds its own request already counted and is granted without counting it again: idempotent, so a lost reply costs
// nothing. Under the run that breaks its twin (see `exposedBy` there) the one release frees the lock, and B is
// granted at once.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';

// Redisson's lock script, FIXED: a request already counted (the same id, resent) is granted, not counted again.
const LOCK = `if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  if redis.call('hget', KEYS[1], ARGV[2] .. ':request') ~= ARGV[3] then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('hset', KEYS[1], ARGV[2] .. ':request', ARGV[3])
  end
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

const reentrantResendFixed: LockStrategy = {
  name: 'fixed-reentrant-resend',
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
          // The same script again, on a fresh connection: safe, since a resent acquire carries its request id.
          redis.disconnect();
          redis = open();
        }
      }
    };
    return {
      async acquire(key) {
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        // FIXED: one id per logical acquire, the same in every resend of it.
        const request = crypto.randomUUID();
        for (let attempts = 1; ; attempts++) {
          if ((await send(LOCK, key, [String(ctx.ttlMs), owner, request])) === null)
            return { key, attempts, handle: owner };
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
export default reentrantResendFixed;
