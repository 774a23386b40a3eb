import { randomBytes } from 'node:crypto';

/**
 * Owner values for Redis locks: what a holder writes as the key's value so that only it can extend or delete the
 * key. The spec asks for a value unique across every client and every lock request; it does not ask for fresh
 * randomness each time. So 96 random bits drawn once per connection, then a counter (Redisson does the same: its
 * client's UUID and a thread id). Drawing 12 random bytes inside each acquire cost ~0.05 ms of a 0.35 ms `SET` on
 * this machine (paced ioredis `SET`, p50 0.36–0.40 ms plain, 0.41–0.46 ms with `randomBytes(12)` in the call),
 * and the acquire is the interval the history times.
 */
export function ownerTokens(): () => string {
  const prefix = randomBytes(12).toString('hex');
  let n = 0;
  return () => `${prefix}-${++n}`;
}
