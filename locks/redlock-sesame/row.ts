import type { LockRow } from '../lock-row.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';
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
  NO_RETRY_REMEDY,
  REDLOCK_NO_PAIR,
  RESTART_DELAY_HOLDS,
  SELF_RENEWING,
} from '../common-remedy-cells.ts';

/** `--lock=redlock-sesame`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redlock-sesame.ts', import.meta.url).href,
  npm: 'redlock-sesame',
  clockAssumption: REDLOCK_CLOCKS,
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'compare-and-delete release and a quorum of five'),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}: the README's \`signal.aborted\` check passes, because after SIGCONT the overdue think timer (armed at the read) runs before the overdue extension timer (armed at the acquire, expiration − 500 ms), so the write goes out before any extension can fail`,
    ),
    'restart-empty': predicted('lost', `${NO_KEY_AFTER_RESTART} on a majority of masters`, {
      expect: 'may-livelock',
      reason:
        "the fork kept node-redlock v5's retry loop: one value for every attempt, an acquire script that refuses its own partial locks, partials released only after the 11th attempt — waiters that split the restarted masters' votes block themselves for a TTL, in some runs, as the beta does",
    }),
    clock: predicted('lost', `${CLOCK_EXPIRES_KEY} (on a majority of masters)`),
    ...noTokenNoSession,
    'pause-master': revised(
      predicted(
        'safe',
        'it resolves each attempt on the first quorum (`_attemptOperation`): a paused master only delays its own answer, a majority still decides every grant',
        {
          expect: 'may-livelock',
          reason:
            "with one master paused, three of the four live ones must agree and waiters split them 2–2 easily; its retry loop (node-redlock v5's) keeps each attempt's partial locks until the last attempt, so split waiters block themselves for a TTL — in some runs",
        },
      ),
      "predicted to recover (each attempt resolves on the first quorum; nobody waits for the paused master). Measured a stall (`--lock=all`, seed 782519096: 2.0 s past the TTL while redis was paused): the beta's self-blocking retry loop, kept by the fork, needs no restart — one paused master is enough to split the votes it blocks itself on (redlock-npm did the same in the same matrix)",
    ),
  },
  remedies: {
    failover: REDLOCK_NO_PAIR,
    'long-work': predicted(
      'safe',
      'using() extends the lock 500 ms before it expires, over and over while the routine runs (TTL 1 s ≥ the 600 ms it requires)',
    ),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': predicted(
      'lost',
      'the write is held past the lease after the `signal.aborted` check passed (the extension, sent through the same held connection, cannot abort it in time); another holder writes first',
    ),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': REDLOCK_NO_PAIR,
  },
  findings: {
    package: '@sesamecare-oss/redlock@1.4.0 (the maintained fork of node-redlock v5)',
    usage:
      "`redlock.using([key], ttl, async (signal) => { …; if (signal.aborted) throw signal.error; … })` — its README's first example — over five ioredis clients, with the package's defaults (retryCount 10, retryDelay 200 ms, retryJitter 100 ms, automaticExtensionThreshold 500 ms).",
    verdict:
      "using() keeps long work safe, and its `signal.aborted` check comes too late for a paused holder; it kept the beta's self-blocking retry loop.",
    advice:
      "its `signal.aborted` check is no fence: a holder paused after the check writes anyway. Fence the write (a version column or a token check in the resource). Its README now points to redlock-universal; its retry loop still keeps each attempt's partial locks until its last retry — pass `retryCount: 0` and retry yourself (as fencepost's `--retry=harness` does for the beta) if a Redis restart must not leave the lock unavailable.",
    lockCheck: 'passed, all 10 steps',
  },
  // The beta's self-blocking retry loop, kept by the fork.
  nightly: ['no-fault', 'restart-empty'],
} as const satisfies LockRow;
