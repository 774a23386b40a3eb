import type { LockStrategy } from '../strategy.ts';
import { connectRedisSemaphore, redisSemaphoreCrash } from '../redis-semaphore/redis-semaphore-client.ts';

/**
 * `redis-semaphore`'s `RedlockMutex` over five independent masters, its README's example (redis-semaphore-client.ts
 * says what the library does around it). Beside Mutex's behaviour (lib/redlockMutex/*.js): each attempt is `SET NX PX`
 * on every master, awaited with `Promise.all` — it decides only once every master answered, so with the README's
 * clients (no command timeout) one paused master holds every acquire and refresh until it resumes; a failed attempt
 * deletes its partial locks everywhere before the next (10 ms later, no jitter); and there is no elapsed-time or
 * validity check at all, neither on acquire nor on refresh.
 */
const redisSemaphoreRedlock: LockStrategy = {
  name: 'redis-semaphore-redlock',
  needs: ['redis'],
  servers: { redis: 5 },
  token: 'none',
  noTokenReason: 'redis-semaphore has no fencing token (its identifier is a random UUID)',
  renews: false,
  // SET … PX on each node at or after the request; no drift budget of its own, so a quorum's key lives invoke + TTL.
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  libraryCrash: redisSemaphoreCrash('redis-semaphore-redlock'),
  connect: (ctx) =>
    connectRedisSemaphore(
      'redis-semaphore-redlock',
      ctx,
      (lib, clients, key, o) => new lib.RedlockMutex(clients, key, o),
    ),
};
export default redisSemaphoreRedlock;
