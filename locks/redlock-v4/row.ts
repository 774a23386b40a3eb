import type { LockRow } from '../lock-row.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';
import { REDLOCK_V4_MARGINS } from './margins.ts';
import { construction, predicted } from '../oracle-cell.ts';
import {
  CLOCK_EXPIRES_KEY,
  NO_KEY_AFTER_RESTART,
  NO_TOKEN,
  PAUSED_HOLDER_WRITES,
  noTokenNoSession,
  waitsForEveryMaster,
} from '../common-cells.ts';
import {
  AOF_HOLDS,
  DELAYED_WRITE_LANDS,
  NO_RETRY_REMEDY,
  REDLOCK_NO_PAIR,
  RESTART_DELAY_HOLDS,
} from '../common-remedy-cells.ts';

/** `--lock=redlock-v4`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redlock-v4.ts', import.meta.url).href,
  npm: 'redlock-v4',
  clockAssumption: REDLOCK_CLOCKS,
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'compare-and-delete release, a quorum of five, and a validity check on every grant'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES}: nothing in redlock 4 checks the lock before acting`),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART} on a majority of masters (the fault restarts the masters holding it, no delay)`,
      {
        expect: 'recovers',
        reason:
          "unlike the beta, a failed attempt runs its unlock script on every master before the next one (redlock.js `_lock`), so waiters that split the restarted masters' votes free them within one attempt: no stall past the TTL",
      },
    ),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': waitsForEveryMaster(
      'redlock 4 decides an attempt only when all five masters answered (`if (waiting-- > 1) return`)',
    ),
  },
  remedies: {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted(
      'lost',
      'nothing extends the lock unless the user calls lock.extend: a 2.5 s section outlives a 1 s TTL',
    ),
    'long-work-watchdog': predicted(
      'safe',
      "--watchdog calls the README's lock.extend(ttl) every TTL/3; an extension that fails (no quorum, or `lock.expiration < Date.now()`) skips the write",
    ),
    'pause-watchdog': predicted(
      'lost',
      'a stopped process cannot extend: its lease runs out during the pause, and after SIGCONT its write goes before the overdue extension',
    ),
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  findings: {
    package: 'redlock@4.2.0 (what `npm install redlock` gives: its only dist-tag is `latest`)',
    usage:
      "`new Redlock([five ioredis clients])` with the package's defaults (retryCount 10, retryDelay 200 ms, retryJitter 100 ms, driftFactor 0.01), `redlock.lock(resource, ttl)`, `lock.extend(ttl)` under `--watchdog`, `lock.unlock()`; clients `new Redis({ host, port })` (ioredis 6.1.0), nothing else set.",
    verdict:
      'a correct Redlock: frees its partial locks between tries (no livelock after a restart) and never hands out an expired lock — but it waits for every master, so one paused master stops every acquire, and nothing in it stops a paused holder from writing.',
    advice:
      'prefer it to 5.0.0-beta.2 (the beta livelocks after a majority restart). Give its clients a command timeout (ioredis `commandTimeout`) so one slow master costs a vote, not every acquire. It has no fencing token: for data that must not be lost, put a version check or a token-fenced write behind it, or use a consensus lock with a token (etcd3-lock with its create revision).',
    lockCheck: 'passed, all 11 steps (renew included)',
  },
  margins: REDLOCK_V4_MARGINS,
  // Waits for every master: one paused master stalls it.
  nightly: ['no-fault', 'pause-master'],
} as const satisfies LockRow;
