import { npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { readmeIoredis, type IoredisClient, type IoredisConstructor } from '../parts/readme-clients.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';

/**
 * `redlock@4.2.0`: what `npm install redlock` gives (its only dist-tag is `latest: 4.2.0`; the `redlock-npm` row is
 * the 5.0.0-beta.2 that fencepost itself depends on). As its README's promise style uses it: `new Redlock([clients])`
 * with the package's defaults (driftFactor 0.01, retryCount 10, retryDelay 200 ms, retryJitter 100 ms — the README's
 * example shows 200 ms of jitter, the code's default is 100), `redlock.lock(resource, ttl)`, `lock.extend(ttl)` (the
 * harness's `--watchdog`: the package README's section on locking and extending) and `lock.unlock()`; over five README clients
 * (ioredis 6.1.0, `new Redis({ host })`, locks/parts/readme-clients.ts).
 *
 * Where it differs from the beta (locks/redlock-v4/npm pins it; node_modules/…/redlock/redlock.js, `_lock`):
 * - after a failed attempt it runs its unlock script on every master *before* the next try, so an attempt's partial
 *   locks never block its own retries (the beta keeps them until its last try: its livelock after a restart);
 * - validity is `start + ttl − drift` with `start` taken at the winning attempt, and a quorum that arrives after that
 *   is a failure (`lock.expiration > Date.now()`): it never hands out an expired lock;
 * - it decides only when *every* master has answered (`if (waiting-- > 1) return`): with these clients (no command
 *   timeout) one paused master holds every lock, extend and unlock until it resumes.
 * - `retryCount: options.retryCount || self.retryCount`: 0 means "the default", so it cannot be asked for one round.
 */
interface V4Lock {
  expiration: number;
  attempts: number;
  unlock(): Promise<void>;
  extend(ttl: number): Promise<V4Lock>;
}
interface V4Redlock {
  lock(resource: string, ttl: number): Promise<V4Lock>;
}
interface V4Module {
  new (clients: IoredisClient[]): V4Redlock;
  LockError: new (...args: unknown[]) => Error & { attempts?: number };
}

export function resourceFor(key: string): string {
  return `fencepost:redlock-v4:${key}`;
}

class RedlockV4Client implements LockClient {
  constructor(
    private readonly ctx: LockContext,
    private readonly clients: IoredisClient[],
    private readonly redlock: V4Redlock,
    private readonly LockError: V4Module['LockError'],
  ) {}

  async acquire(key: string): Promise<Lease> {
    try {
      const lock = await this.redlock.lock(resourceFor(key), this.ctx.ttlMs);
      return { key, validityMs: Math.max(0, lock.expiration - Date.now()), attempts: lock.attempts, handle: lock };
    } catch (err) {
      // Its only "no" after its retries ("Exceeded 10 attempts to lock the resource"): it unlocked every attempt.
      if (!(err instanceof this.LockError)) throw err;
      throw new LockNotAcquired(`redlock-v4: ${err.message}`, err.attempts ?? 0);
    }
  }

  async renew(lease: Lease): Promise<boolean> {
    try {
      lease.handle = await (lease.handle as V4Lock).extend(this.ctx.ttlMs);
      lease.validityMs = Math.max(0, (lease.handle as V4Lock).expiration - Date.now());
      return true;
    } catch (err) {
      // "because the lock has already expired", or no quorum kept our value.
      if (err instanceof this.LockError) return false;
      throw err;
    }
  }

  async release(lease: Lease): Promise<boolean> {
    try {
      await (lease.handle as V4Lock).unlock();
      return true;
    } catch (err) {
      // "Unable to fully release the lock": fewer than a quorum still had our value (it expired, or was taken).
      if (err instanceof this.LockError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    // disconnect(), not redlock.quit(): QUIT waits for a reply a paused master never sends.
    for (const c of this.clients) c.disconnect();
  }
}

const redlockV4: LockStrategy = {
  name: 'redlock-v4',
  needs: ['redis'],
  servers: { redis: 5 },
  token: 'none',
  noTokenReason: 'redlock 4.2.0 exposes no monotonic fencing token (lock values are random)',
  // Manual extend only: --watchdog maps to lock.extend(ttl).
  renews: true,
  // SET … PX on each master at or after the request, less Redlock's drift budget (driftFactor 0.01 × TTL + 2 ms).
  lease: { kind: 'ttl-from-request', driftFactor: REDLOCK_CLOCKS.maxRateError },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  async connect(ctx) {
    const require = npmLockRequire('redlock-v4');
    const Redis = require('ioredis') as IoredisConstructor;
    const Redlock = require('redlock') as V4Module;
    const clients = ctx.redis.map((e) => readmeIoredis(Redis, e));
    return new RedlockV4Client(ctx, clients, new Redlock(clients), Redlock.LockError);
  },
};
export default redlockV4;
