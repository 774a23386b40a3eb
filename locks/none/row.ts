import type { LockRow } from '../lock-row.ts';
import { construction, measured } from '../oracle-cell.ts';
import { NO_LOCK, NO_TOKEN, NO_WATCHDOG } from '../common-cells.ts';
import { NO_RETRY_REMEDY } from '../common-remedy-cells.ts';

/** `--lock=none`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./none.ts', import.meta.url).href,
  noLease: 'it takes no lock at all',
  place: { store: 'none', from: 'fencepost' },
  faults: {
    'no-fault': measured('lost'),
    'pause-holder': construction('lost', NO_LOCK),
    'restart-empty': construction('lost', `${NO_LOCK}; and it runs no Redis, so nothing is restarted`),
    clock: construction('lost', `${NO_LOCK}; and it has no lock server whose clock could move`),
    fencing: construction('n/a', 'no lock, so no token to fence with'),
    'restart-fenced': construction('n/a', 'no lock, so no token to fence with'),
    'pause-master': construction('lost', `${NO_LOCK}; and it runs no Redis master to pause`),
    'kill-session': construction('lost', `${NO_LOCK}; and it holds no lock session`),
  },
  remedies: {
    failover: construction('lost', NO_LOCK),
    'long-work': construction('lost', NO_LOCK),
    'long-work-watchdog': construction('refuse', NO_WATCHDOG),
    'pause-watchdog': construction('refuse', NO_WATCHDOG),
    'restart-delay': construction('lost', `${NO_LOCK}; and it runs no Redis`),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('lost', `${NO_LOCK}; and it runs no Redis`),
    'delay-write': construction('lost', NO_LOCK),
    'delay-write-fenced': construction('refuse', NO_TOKEN),
    'failover-fenced': construction('refuse', NO_TOKEN),
  },
  nightly: 'every-cell',
} as const satisfies LockRow;
