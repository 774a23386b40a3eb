import type { LockRow } from '../lock-row.ts';
import { REDIS_SEMAPHORE_MARGINS } from './margins.ts';
import { construction, predicted } from '../oracle-cell.ts';
import {
  CLOCK_EXPIRES_KEY,
  NO_KEY_AFTER_RESTART,
  NO_MASTERS,
  NO_TOKEN,
  PAUSED_HOLDER_WRITES,
  noTokenNoSession,
} from '../common-cells.ts';
import {
  AOF_HOLDS,
  DELAYED_WRITE_LANDS,
  FAILOVER_LOSES,
  NO_RETRY_REMEDY,
  RESTART_DELAY_HOLDS,
  SELF_RENEWING,
} from '../common-remedy-cells.ts';

/** `--lock=redis-semaphore`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redis-semaphore.ts', import.meta.url).href,
  npm: 'redis-semaphore',
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'SET NX PX and a compare-and-delete release on one Redis'),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES} — its write is due before the overdue refresh (think timer at the read, refresh 0.8 × TTL after the acquire); the refresh then finds the key gone and the default onLockLost throws LostLockError unhandled, ending the holder's process after its write was sent (the library's crash, recorded as such)`,
    ),
    'restart-empty': predicted('lost', NO_KEY_AFTER_RESTART),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  remedies: {
    failover: FAILOVER_LOSES,
    'long-work': predicted('safe', 'it refreshes the lock every 0.8 × TTL by itself while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  findings: {
    package: 'redis-semaphore@5.8.0, `Mutex` (single Redis)',
    usage:
      'README example 1: `new Mutex(redisClient, key, { lockTimeout: ttl, acquireTimeout })`, `await mutex.acquire()`, the work, `await mutex.release()` in `finally`; the default refresh (every 0.8 × lockTimeout) and the default `onLockLost` (throws an unhandled `LostLockError`); ioredis 6.1.0 `new Redis({ host, port })`.',
    verdict:
      'refreshes itself, so long work is safe; a holder paused past its TTL writes, and then the library ends its process with an unhandled LostLockError.',
    advice:
      'do not rely on the default `onLockLost`: it kills the process after the damage is done. Pass `onLockLost` and check `mutex.isAcquired` before each write (README example 2) — and still fence the write, because a paused holder passes that check too. A single Redis loses the lock on a restart or failover.',
    lockCheck: 'passed, all 10 steps',
  },
  margins: REDIS_SEMAPHORE_MARGINS,
  // Its finding is the paused holder's crash (LostLockError).
  nightly: ['no-fault', 'pause-holder'],
} as const satisfies LockRow;
