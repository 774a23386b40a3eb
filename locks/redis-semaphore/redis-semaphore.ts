import type { LockStrategy } from '../strategy.ts';
import { connectRedisSemaphore, redisSemaphoreCrash } from './redis-semaphore-client.ts';

/**
 * `redis-semaphore`'s `Mutex` on one Redis, README example 1 (redis-semaphore-client.ts says what it does). It refreshes
 * itself, so `--watchdog` does not apply; a lost lock ends the holder's process (its default onLockLost).
 */
const redisSemaphore: LockStrategy = {
  name: 'redis-semaphore',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  noTokenReason: 'redis-semaphore has no fencing token (its identifier is a random UUID)',
  renews: false,
  // SET … PX at or after the request: invoke + TTL is the key's shortest life (docs/checkers.md#the-locks-promise).
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock'],
  libraryCrash: redisSemaphoreCrash('redis-semaphore'),
  connect: (ctx) =>
    connectRedisSemaphore('redis-semaphore', ctx, (lib, [client], key, o) => new lib.Mutex(client, key, o)),
};
export default redisSemaphore;
