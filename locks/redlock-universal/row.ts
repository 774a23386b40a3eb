import type { LockRow } from '../lock-row.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';
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

/** `--lock=redlock-universal`: its strategy, its pins, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redlock-universal.ts', import.meta.url).href,
  npm: 'redlock-universal',
  clockAssumption: REDLOCK_CLOCKS,
  place: { store: 'Redis', from: 'npm' },
  faults: {
    'no-fault': predicted(
      'safe',
      'SET NX PX and a compare-and-delete release on one Redis; its short retry budget (4 tries, 100 ms apart) only makes more acquires give up',
    ),
    'pause-holder': predicted(
      'lost',
      `${PAUSED_HOLDER_WRITES}: the README's \`signal.aborted\` check passes, because the overdue think timer runs before the overdue extension (armed 0.8 × TTL after the acquire)`,
    ),
    'restart-empty': predicted(
      'lost',
      `${NO_KEY_AFTER_RESTART}; the README's client queues commands while Redis is down, so the circuit breaker sees no errors and stays closed`,
    ),
    clock: predicted('lost', CLOCK_EXPIRES_KEY),
    ...noTokenNoSession,
    'pause-master': construction('n/a', NO_MASTERS),
  },
  remedies: {
    failover: FAILOVER_LOSES,
    'long-work': predicted(
      'safe',
      'using() extends the lock while the routine runs; at a 1 s TTL its 1 s minimum interval makes it extend back to back (a busy loop, not a safety problem)',
    ),
    ...SELF_RENEWING,
    'restart-delay': RESTART_DELAY_HOLDS,
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': AOF_HOLDS,
    'delay-write': DELAYED_WRITE_LANDS,
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  findings: {
    package:
      'redlock-universal@0.8.5 (`engines: node >= 22`; measured on Node 20, where it installs with an EBADENGINE warning and runs)',
    usage:
      "Its Quick Start: `createLock({ adapter: new IoredisAdapter(new Redis()), key, ttl })` and `lock.using(async (signal) => { …; if (signal.aborted) throw new Error('Lock lost'); … })`; defaults (4 tries 100 ms apart, circuit breaker 5 errors → 60 s).",
    verdict:
      'using() keeps long work safe; its `signal.aborted` check does not stop a paused holder; its short retry budget turns contention into many failed acquires.',
    advice:
      'fence the write; the abort signal is a hint, not a guarantee. Raise `retryAttempts` if acquires must wait for a busy lock. Its authors support Node ≥ 22 only.',
    lockCheck: 'passed, all 10 steps (on Node 20)',
  },
  nightly: ['no-fault', 'pause-holder'],
} as const satisfies LockRow;
