import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import {
  CLOCK_EXPIRES_KEY,
  NO_KEY_AFTER_RESTART,
  NO_MASTERS,
  NO_SESSION,
  PAUSED_HOLDER_WRITES,
} from '../common-cells.ts';
import { DELAYED_WRITE_LANDS, FAILOVER_LOSES, NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';

/** `--lock=simple-redis-mutex`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./simple-redis-mutex.ts', import.meta.url).href,
  npm: 'simple-redis-mutex',
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'SET NX PX and a compare-and-delete release; its INCR tokens only grow'),
    'pause-holder': predicted('lost', `${PAUSED_HOLDER_WRITES}: nothing checks the lock before acting`),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART}; its token counter lives in the same Redis and restarts at 1, which breaks the token's promise too`,
    ),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    fencing: predicted(
      'safe',
      "its INCR token grows from each holder to the next: the successor writes with a larger one, and the resumed holder's write is refused as stale",
    ),
    'restart-fenced': predicted(
      'lost',
      "the restart wipes the token counter with the lock: the next holder's INCR gives 1, below every token the resource has seen. The fence refuses those writes (the data holds) — but the stale holder's larger token is still admitted after the successor's small one, and the token-order checker finds a grant whose token went backwards: INVALID either way",
    ),
    'kill-session': construction('n/a', NO_SESSION),
    'pause-master': construction('n/a', NO_MASTERS),
  },
  remedies: {
    failover: FAILOVER_LOSES,
    'long-work': predicted('lost', 'it renews only when asked (refreshTimeout()): a 2.5 s section outlives a 1 s TTL'),
    ...SELF_RENEWING,
    'restart-delay': predicted(
      'lost',
      'the delay saves the lock but not its token: the counter restarts at 1 with the emptied node, so the next grant carries a token below the last one — the token-order checker finds it (INVALID)',
    ),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': predicted('safe', 'with appendfsync always the restarted node keeps the key and the counter'),
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': predicted(
      'safe',
      "the successor's INCR token is larger; the held write arrives with the smaller one and is refused as stale",
    ),
    'failover-fenced': predicted(
      'lost',
      "the promoted replica's counter is as far behind as its keys: the next holder's INCR re-issues a token at or below the stale holder's, so the fence admits the stale holder's write after the successor's (and the token-order checker sees the counter go backwards)",
    ),
  },
  findings: {
    package: 'simple-redis-mutex@3.0.0 with redis@6.4.0',
    usage:
      '`const release = await lock(redis, name, { timeout: ttl, failAfter })`, the work with `release.fencingToken`, `await release()`; node-redis 6 `createClient()` + `connect()`; pollingInterval at its 10 s default.',
    verdict:
      'the one Node Redis lock with a fencing token (an INCR counter): it fences a paused holder — until Redis restarts or fails over, when the counter goes back.',
    advice:
      'use its `fencingToken` in the write (a `WHERE token < $1` check): that makes a paused holder harmless. Run its Redis with `appendfsync always` (or never restart it empty) or the tokens go backwards after a restart; a replica failover re-issues tokens.',
    lockCheck:
      'passed, all 10 steps, once its `failAfter` is told apart from an unreachable Redis (a PING: its error says "could not be acquired" either way); closing its client with an acquire in flight leaves an unhandled rejection from its wait loop, which ends the process',
  },
  // The token that fences (its paused-holder cell, with --fencing), and goes backwards with the restarted counter.
  nightly: ['no-fault', 'fencing', 'restart-fenced'],
} as const satisfies LockRow;
