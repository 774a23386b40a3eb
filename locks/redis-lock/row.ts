import type { LockRow } from '../lock-row.ts';
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
  SELF_RENEWING,
} from '../common-remedy-cells.ts';

/** `--lock=redis-lock`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redis-lock.ts', import.meta.url).href,
  npm: 'redis-lock',
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted(
      'safe',
      "SET NX PX; its release is a plain DEL, but without a fault the holder's clock check (`lockTimeoutValue > Date.now()`) only lets it through while its own key is still there",
    ),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}; its done() then sees its own clock past the expiry and sends no DEL, so the successor's lock survives (no cascade)`,
    ),
    'restart-empty': predicted('lost', NO_KEY_AFTER_RESTART),
    clock: predicted(
      'lost',
      `${CLOCK_EXPIRES_KEY}; then the first holder's done() — its own clock did not move — sends a plain DEL that removes the successor's lock, letting a third client in while the second is inside (errorception/redis-lock#29): more overlaps than the fault's hits`,
    ),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  remedies: {
    failover: FAILOVER_LOSES,
    'long-work': predicted('lost', 'no extension in its API: a 2.5 s section outlives a 1 s TTL'),
    ...SELF_RENEWING,
    'restart-delay': predicted(
      'lost',
      "the delay does not save it: the holder's done() runs while the node is down (its own clock says the lock is still valid), so its plain DEL waits in node-redis's offline queue behind the waiters' SET NX; when the node is back a waiter's SET wins and the holder's queued DEL then deletes that new holder's key, letting a third client in",
    ),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  findings: {
    package: 'redis-lock@1.0.0 with redis@4.7.1 (it refuses node-redis 5 and 6)',
    usage:
      '`const lock = require("redis-lock")(client)`, `const done = await lock(name, ttl)`, the work, `await done()`; node-redis 4 `createClient()` + `connect()`.',
    verdict:
      "releases with a plain DEL guarded by its own clock: it can delete the next holder's lock; no acquire timeout, no extension, no token.",
    advice:
      'do not use it where two writers would hurt: its release can free a lock it no longer owns (errorception/redis-lock#29, open since 2020). A lock whose release compares the owner value (redis-semaphore, redlock) is the minimum; a fenced write is the fix.',
    lockCheck: `FAILED 2 of 9 steps: *a second acquire is refused while A holds it* — it never says no: its acquire retries every 50 ms forever, so the check's 2 s budget ran out with the retry still going (an unknown, not a refusal) — and then *acquire after A released it*: B's abandoned retry loop took the lock the moment A released it, so B's next acquire waited on B's own lock`,
  },
  // The plain DEL that frees the next holder's lock.
  nightly: ['no-fault', 'clock'],
} as const satisfies LockRow;
