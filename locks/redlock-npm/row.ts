import type { LockRow } from '../lock-row.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';
import { construction, measured, predicted, revised } from '../oracle-cell.ts';
import { NO_PAIR, NO_SESSION, NO_TOKEN, REDLOCK_NPM_LIVELOCK } from '../common-cells.ts';
import { RETRY_RECOVERS, redisLike } from '../common-remedy-cells.ts';

/** `--lock=redlock-npm`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redlock-npm.ts', import.meta.url).href,
  targetKey: (ns, a) => `${ns}fencepost:redlock-npm:${a}`,
  clockAssumption: REDLOCK_CLOCKS,
  place: { store: 'Redis', from: 'npm' },
  // The package as its README uses it (its own retry loop, its defaults). Under restart-empty it loses updates as
  // every Redlock does (no delay: the restarted majority grants the lock again) and, beside that, livelocks.
  faults: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost', REDLOCK_NPM_LIVELOCK),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    // It too resolves on the first quorum (dist/esm/index.js `_attemptOperation`), over fail-fast clients — but its retry
    // loop blocks itself on split votes, and four live masters split more often than five.
    'pause-master': revised(
      predicted(
        'safe',
        'a paused master only delays its answers: a majority of the five still decides every grant, so nothing is granted twice',
        {
          expect: 'may-livelock',
          reason:
            "with one master paused, three of the four live ones must agree, and waiters split them 2–2 easily; the package's retry loop keeps each attempt's partial locks until its last retry, so split waiters block themselves for a TTL — in some runs",
        },
      ),
      "predicted to recover (its clients time a paused master out, a vote against). Measured a stall (`--lock=all`, seed 782519096: the lock free with all 5 clients waiting for 2.0 s from 9.7 s, during the pause of redis[1]): the beta's self-blocking retry loop, which restart-empty shows, needs no restart — one paused master makes the split votes it feeds on",
    ),
    'kill-session': construction('n/a', NO_SESSION),
  },
  // The package as its README uses it; its remedy cell swaps its retry loop for ours (the users' workaround).
  remedies: {
    ...redisLike(
      construction(
        'n/a',
        `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
      ),
      true,
    ),
    // Long work with --watchdog under the package's own loop: it measures a lock's validity from its *first* attempt
    // (mike-marcacci/node-redlock#299), and its 10 retries (~2 s) outlast this scenario's 1 s TTL, so a lock won
    // after a few retries comes back already expired (validityMs 0): the watchdog cannot extend it ("Cannot extend
    // an already-expired lock") and the client skips its write. The holder that releases and at once reacquires
    // wins on its first attempt and writes everything (seed 42: client 4 committed all 8 writes; 10 of 18 acquires
    // came back with validity ≤ 126 ms, 7 with 0). No lost update: so safe, and it may starve.
    'long-work-watchdog': measured('safe-may-starve'),
    'restart-retry': measured('lost', RETRY_RECOVERS),
  },
  findings: {
    package:
      "redlock@5.0.0-beta.2 (fencepost's own dependency; `npm install redlock@next`-style installs get it, `npm install redlock` does not)",
    usage:
      "`new Redlock(clients)` with the package's defaults, `redlock.acquire([resource], ttl)`, `lock.extend(ttl)` under `--watchdog`, `lock.release()`; over five fail-fast ioredis clients of fencepost's (a 100 ms command timeout, no offline queue), not the README's bare ones (locks/redlock-npm/redlock-npm.ts says why).",
    verdict:
      'safe without faults; a paused holder writes; after a majority restart its retry loop blocks itself (a livelock, in some runs); no fencing token.',
    advice:
      'use redlock 4.2.0 instead, or `retryCount: 0` with a retry loop of your own (the remedy cell). Fence writes that must not be lost.',
  },
  // The redlock package's pinned beta: its self-blocking retry loop (a livelock after a majority restarts empty) and
  // the users' workaround for it (our retry loop around single attempts).
  nightly: ['no-fault', 'restart-empty', 'restart-retry'],
  bench: { overhead: { floor: 'redis×5', timed: 'acquire' } },
} as const satisfies LockRow;
