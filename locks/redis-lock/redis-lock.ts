import { crashInCache, npmLockRequire } from '../npm-lock-cache.ts';
import type { Lease, LockClient, LockContext, LockStrategy } from '../strategy.ts';
import { dropNodeRedis, readmeNodeRedis, type NodeRedisClient, type NodeRedisModule } from '../parts/readme-clients.ts';

/**
 * `redis-lock@1.0.0` with the node-redis it requires ("Requires v4 of node-redis": `redis@4.7.1`; it checks for
 * node-redis 4's `v4` accessor and throws on 5 and 6), as its README uses it: `const lock = require('redis-lock')(client)`,
 * `const done = await lock(name, ttl)`, the work, `await done()`. Its defaults otherwise (retryDelay 50 ms).
 *
 * What it does (index.js; locks/redis-lock/npm pins it):
 * - the value is `Date.now() + timeout + 1`, a timestamp, not unique; acquire is `SET lock.<name> <value> PX NX`,
 *   retried every 50 ms *forever*, every error swallowed: it has no acquire timeout and no way to cancel;
 * - `done()` is `if (lockTimeoutValue > Date.now()) return client.del(lockName)`: a plain DEL guarded only by this
 *   client's wall clock. A key that expired early on the server (its clock jumped, it restarted, a failover), or a
 *   DEL that arrives late, deletes *the next holder's* lock (errorception/redis-lock#29, open since 2020). It never
 *   says whether the lock was still ours.
 *
 * An acquire the library is still retrying when the harness's acquire budget runs out is abandoned as unknown
 * (`info`): its loop may still take the lock later, so "not acquired" would not be true. The loop goes on in the
 * background until the process's connection is closed (then every SET fails and is retried every 50 ms, harmlessly).
 */
type Done = () => Promise<unknown>;
type RedisLock = (name: string, timeout: number) => Promise<Done>;

class RedisLockClient implements LockClient {
  constructor(
    private readonly ctx: LockContext,
    private readonly client: NodeRedisClient,
    private readonly lock: RedisLock,
  ) {}

  async acquire(key: string): Promise<Lease> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `redis-lock has no acquire timeout: still retrying after ${this.ctx.acquireTimeoutMs} ms (its loop may take the lock later)`,
            ),
          ),
        this.ctx.acquireTimeoutMs,
      );
    });
    try {
      const done = await Promise.race([this.lock(`fencepost:${key}`, this.ctx.ttlMs), gaveUp]);
      return { key, attempts: 1, handle: done };
    } finally {
      clearTimeout(timer);
    }
  }

  async release(lease: Lease): Promise<boolean> {
    // done() resolves to DEL's count when it sent one (1: a key was deleted — ours, or a successor's), undefined
    // when its clock said the lock had expired and it sent nothing.
    const deleted = await (lease.handle as Done)();
    return deleted === 1;
  }

  async close(): Promise<void> {
    dropNodeRedis(this.client);
  }
}

const redisLock: LockStrategy = {
  name: 'redis-lock',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  noTokenReason: 'redis-lock has no fencing token (its value is an expiry timestamp)',
  // No extend in its API, and nothing renews it: --watchdog has nothing to call.
  renews: false,
  // SET … PX at or after the request: invoke + TTL is the key's shortest life (docs/checkers.md#the-locks-promise).
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock'],
  libraryCrash: crashInCache('redis-lock'),
  async connect(ctx) {
    const require = npmLockRequire('redis-lock');
    const redis = require('redis') as NodeRedisModule;
    const client = await readmeNodeRedis(redis, ctx.redis[0]);
    const lock = (require('redis-lock') as (c: NodeRedisClient) => RedisLock)(client);
    return new RedisLockClient(ctx, client, lock);
  },
};
export default redisLock;
