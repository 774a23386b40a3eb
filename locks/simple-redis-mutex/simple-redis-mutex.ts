import { crashInCache, npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { dropNodeRedis, readmeNodeRedis, type NodeRedisClient, type NodeRedisModule } from '../parts/readme-clients.ts';

/**
 * `simple-redis-mutex@3.0.0` on one Redis through node-redis 6 (`redis@6.4.0`: its peer is `redis >= 5`), as its
 * README's blocking example uses it: `const release = await lock(redis, name, options)`, the work with
 * `release.fencingToken`, `await release()`. Options at its defaults (pollingInterval 10 s) but two: `timeout` (the
 * lock's TTL, default 30 s) is the run's `--ttl`, and `failAfter` (default none: "block indefinitely") is the
 * harness's acquire budget — its documented way to give up.
 *
 * The only Node Redis lock here with a fencing token: after a successful `SET NX PX` it takes
 * `release.fencingToken = await redis.incr('@simple-redis-mutex:fencing-tokens')` — a counter in the same Redis, in a
 * second round trip (dist/index.js `tryLock`; locks/simple-redis-mutex/npm pins it). "Application logic should only
 * depend on the fencing token increasing" (README): `token: 'monotonic'`, so `--fencing` is measured, not refused.
 * A Redis that restarts empty (or a replica promoted behind) counts again from 1.
 *
 * Also from the code: waiters are woken by a pub/sub message that only a `release()` publishes; a lock that expired
 * (holder paused or killed, Redis restarted) is noticed on the next 10 s poll, or by a fresh `lock()` call. A Redis
 * error inside its wait loop (`tryLock(...).then(...)`, no catch) is an unhandled rejection: the process ends — the
 * library's doing (LockStrategy.libraryCrash). And a `tryLock` still in flight when `failAfter` fires may take the
 * lock after `lock()` rejected: nobody will release it; it expires after its TTL.
 */
type Release = (() => Promise<void>) & { fencingToken: number };

/** How long a PING may take for Redis to count as answering (its replies take well under 1 ms here). */
const PING_MS = 500;

/** Whether Redis answers a PING within PING_MS. */
async function answers(client: NodeRedisClient): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PING_MS)));
  try {
    return await Promise.race([client.ping!().then(() => true as const), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
interface MutexModule {
  lock(redis: NodeRedisClient, name: string, options: { timeout: number; failAfter: number }): Promise<Release>;
}

class SimpleRedisMutexClient implements LockClient {
  constructor(
    private readonly ctx: LockContext,
    private readonly client: NodeRedisClient,
    private readonly lib: MutexModule,
  ) {}

  async acquire(key: string): Promise<Lease> {
    let release: Release;
    try {
      release = await this.lib.lock(this.client, `fencepost:${key}`, {
        timeout: this.ctx.ttlMs,
        failAfter: this.ctx.acquireTimeoutMs,
      });
    } catch (err) {
      // Its failAfter (`Lock "…" could not be acquired after … millis`) says the same whether the lock was busy or Redis
      // never answered — and in the second case its SET may still be queued, to take the lock later. So a PING tells
      // them apart: answered, the lock was busy (not acquired); not, the outcome is unknown.
      if (!(err instanceof Error && /could not be acquired after/.test(err.message))) throw err;
      if (await answers(this.client)) throw new LockNotAcquired(`simple-redis-mutex: ${err.message}`, 0);
      throw new Error(`simple-redis-mutex gave up (${err.message}) while Redis did not answer a PING: unknown`);
    }
    return { key, token: String(release.fencingToken), attempts: 1, handle: release };
  }

  async release(lease: Lease): Promise<boolean> {
    // A compare-and-delete that publishes the release when it deleted; it does not say whether it did.
    await (lease.handle as Release)();
    return true;
  }

  async close(): Promise<void> {
    dropNodeRedis(this.client);
  }
}

const simpleRedisMutex: LockStrategy = {
  name: 'simple-redis-mutex',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'monotonic',
  // Its refreshTimeout() is manual and is a GET then a PEXPIRE (not atomic); the harness's watchdog does not call it.
  renews: false,
  // SET … PX at or after the request: invoke + TTL is the key's shortest life (docs/checkers.md#the-locks-promise).
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock'],
  libraryCrash: crashInCache('simple-redis-mutex'),
  async connect(ctx) {
    const require = npmLockRequire('simple-redis-mutex');
    const client = await readmeNodeRedis(require('redis') as NodeRedisModule, ctx.redis[0]);
    return new SimpleRedisMutexClient(ctx, client, require('simple-redis-mutex') as MutexModule);
  },
};
export default simpleRedisMutex;
