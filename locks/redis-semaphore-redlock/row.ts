import type { LockRow } from '../lock-row.ts';
import { construction, predicted, revised } from '../oracle-cell.ts';
import {
  CLOCK_EXPIRES_KEY,
  NO_KEY_AFTER_RESTART,
  NO_TOKEN,
  PAUSED_HOLDER_WRITES,
  noTokenNoSession,
} from '../common-cells.ts';
import {
  AOF_HOLDS,
  DELAYED_WRITE_LANDS,
  NO_RETRY_REMEDY,
  REDLOCK_NO_PAIR,
  SELF_RENEWING,
} from '../common-remedy-cells.ts';

/** `--lock=redis-semaphore-redlock`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redis-semaphore-redlock.ts', import.meta.url).href,
  npm: 'redis-semaphore-redlock',
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'SET NX PX on a majority of five, compare-and-delete release on all'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES} (as for its Mutex: the write before the refresh)`),
    'restart-empty': predicted('lost', `${NO_KEY_AFTER_RESTART} on a majority of masters`, {
      expect: 'recovers',
      reason:
        'a failed attempt deletes its partial locks on every master before the next try (lib/redlockMutex/acquire.js), 10 ms later: split votes last one attempt, not a TTL',
    }),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': revised(
      predicted(
        'may-lose',
        'an attempt waits for every master (`Promise.all`) and checks no validity: one that waited out the pause counts the votes the four live masters gave before it — keys that expired while it waited — so it can return holding a lock that another client takes at the same time (when another client retries just then)',
        {
          expect: 'stalls',
          reason:
            "RedlockMutex awaits every master with `Promise.all` on each attempt; with the README's clients a reply from the paused master comes only when it resumes, so no acquire completes for the pause while clients wait",
        },
      ),
      "predicted safe (a paused master only delays; a majority still decides). Measured lost in one run (`--lock=redis-semaphore-redlock --nemesis=pause-node --seed=252025697`: INVALID, 1 lost update): p0's acquire sent SET NX at 10.70 s, four masters granted it with a 2 s TTL, the fifth was paused until 13.15 s; at 13.13 s `Promise.all` returned and p0 took its lock — whose keys had expired at 12.70 s — and 40 ms later p2's retry won the four empty masters: two holders. The `--lock=all` run of the same cell (seed 782519096) stalled but lost nothing: the double grant needs a waiter that had the quorum before the pause and another that retries right after it, so the cell expects 'may lose'. A Redlock without the validity check turns one slow master into a double grant",
    ),
  },
  remedies: {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted('safe', 'it refreshes the lock on every master every 0.8 × TTL while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': revised(
      predicted(
        'may-lose',
        "as under a paused master: an attempt awaits every master (`Promise.all`) and checks no validity, so one whose SET waited for the master that was down counts votes whose keys were about to expire, and returns a lock another client can take at once — the restart delay keeps the restarted master's old leases dead, not this waiter's",
      ),
      "predicted safe (the restarted master stays down for a TTL). Measured lost in the `--lock=all` run of 2026-12-06 (`--lock=redis-semaphore-redlock --nemesis=restart-empty --nemesis-interval=500 --think=800 --restart-delay=2000 --time-limit=20 --seed=501`: INVALID, 1 lost update): redis[1] went down at 8.53 s for 2 s; p0 asked for the lock at 8.56 s and was granted it at 10.55 s, its promise by the TTL from its request already over (the promise checker: 6 ms left); p1, whose release had waited for the same master, asked again at 10.659 s and was granted it 1 ms later, while p0 still worked: two holders, p1's write overwrote p0's. The checker calls the overlap unknown (the lease's start is not in the history), not a broken promise",
    ),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  findings: {
    package: 'redis-semaphore@5.8.0, `RedlockMutex` (five masters)',
    usage:
      "Its README's RedlockMutex example over five ioredis clients, `lockTimeout: ttl`, the rest at defaults (refresh every 0.8 × lockTimeout, default `onLockLost`).",
    verdict:
      'frees its partial locks every 10 ms try (no livelock), refreshes itself — but it awaits every master on each try, and checks no validity window at all.',
    advice:
      'as for its Mutex: handle `onLockLost`, fence the write. Give the clients a command timeout, or one paused master stalls every acquire and refresh.',
    lockCheck: 'passed, all 10 steps',
  },
  nightly: ['no-fault', 'pause-master'],
} as const satisfies LockRow;
