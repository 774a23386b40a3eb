import { crashInCache, npmLockRequire } from '../npm-lock-cache.ts';
import type { NpmLockPackage } from '../registry.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext } from '../strategy.ts';
import { readmeIoredis, type IoredisClient, type IoredisConstructor } from '../parts/readme-clients.ts';

/**
 * `redis-semaphore@5.8.0` as its README's first example uses it — `const mutex = new Mutex(redisClient, key)`,
 * `await mutex.acquire()`, the critical code, `await mutex.release()` in `finally` — for both its rows: `Mutex` on one
 * Redis (redis-semaphore.ts) and `RedlockMutex` over five independent masters (redis-semaphore-redlock.ts). Options
 * at the README's defaults but two, set to the run's: `lockTimeout` (the TTL, default 10 s) and `acquireTimeout` (the
 * harness's acquire budget, default 10 s, which would outlast the harness's step timeout at the default TTL).
 *
 * What the library does on its own (lib/Lock.js, lib/misc.js; locks/redis-semaphore/npm pins it):
 * - it refreshes the lock every `0.8 × lockTimeout` (`setInterval`), so long work does not outlive it, with 0.2 × TTL
 *   of slack for the refresh to arrive;
 * - when a refresh finds the key gone or someone else's it sets `isAcquired = false`, stops refreshing and calls
 *   `onLockLost`, whose default "throws unhandled LostLockError" (README): inside an async interval callback, so an
 *   unhandled rejection, which ends a Node ≥ 15 process. That is the row's documented behaviour, recorded as the
 *   library's (LockStrategy.libraryCrash), not as a client that cannot run. The critical section is not interrupted,
 *   and README example 1 has no `isAcquired` check before acting, so this row has none (`stillHeld`).
 * - `release()` does nothing when `isAcquired` is already false, else runs a compare-and-delete whose answer it
 *   ignores: it never says whether the lock was still ours. The lease's `released` here is the library's belief.
 */
interface Mutex {
  readonly isAcquired: boolean;
  acquire(): Promise<void>;
  release(): Promise<void>;
  stopRefresh(): void;
}
interface MutexOptions {
  lockTimeout: number;
  acquireTimeout: number;
}
export interface SemaphoreModule {
  Mutex: new (client: IoredisClient, key: string, options: MutexOptions) => Mutex;
  RedlockMutex: new (clients: IoredisClient[], key: string, options: MutexOptions) => Mutex;
  TimeoutError: new (...args: unknown[]) => Error;
}

/** The Mutex or RedlockMutex of one key, over the client's connections. */
export type MutexFactory = (lib: SemaphoreModule, clients: IoredisClient[], key: string, o: MutexOptions) => Mutex;

class RedisSemaphoreClient implements LockClient {
  /** Mutexes this process holds: `close()` stops their refresh timers (a process that goes on as a new id). */
  private readonly held = new Set<Mutex>();

  constructor(
    private readonly row: string,
    private readonly ctx: LockContext,
    private readonly lib: SemaphoreModule,
    private readonly clients: IoredisClient[],
    private readonly mutexFor: MutexFactory,
  ) {}

  async acquire(key: string): Promise<Lease> {
    const options = { lockTimeout: this.ctx.ttlMs, acquireTimeout: this.ctx.acquireTimeoutMs };
    const mutex = this.mutexFor(this.lib, this.clients, `fencepost:${this.row}:${key}`, options);
    try {
      await mutex.acquire();
    } catch (err) {
      // "Acquire mutex … timeout": its loop (SET NX every 10 ms) ran out of acquireTimeout.
      if (err instanceof this.lib.TimeoutError) throw new LockNotAcquired(`${this.row}: ${err.message}`, 0);
      throw err;
    }
    this.held.add(mutex);
    return { key, attempts: 1, handle: mutex };
  }

  async release(lease: Lease): Promise<boolean> {
    const mutex = lease.handle as Mutex;
    this.held.delete(mutex);
    const believedHeld = mutex.isAcquired;
    await mutex.release();
    return believedHeld;
  }

  async close(): Promise<void> {
    for (const m of this.held) m.stopRefresh();
    this.held.clear();
    for (const c of this.clients) c.disconnect();
  }
}

/** `connect` of a redis-semaphore row: the README's ioredis clients (one per master) and the row's mutex. */
export async function connectRedisSemaphore(
  row: NpmLockPackage,
  ctx: LockContext,
  mutexFor: MutexFactory,
): Promise<LockClient> {
  // Each row loads its own pinned install (locks/<row>/npm): the same package and version, one folder per row.
  const require = npmLockRequire(row);
  const Redis = require('ioredis') as IoredisConstructor;
  const lib = require('redis-semaphore') as SemaphoreModule;
  const clients = ctx.redis.map((e) => readmeIoredis(Redis, e));
  return new RedisSemaphoreClient(row, ctx, lib, clients, mutexFor);
}

/**
 * Its default onLockLost's unhandled LostLockError (and any other error of its own that reaches the top level), for the
 * row whose install it came from.
 */
export const redisSemaphoreCrash = (row: NpmLockPackage) => crashInCache(row);
