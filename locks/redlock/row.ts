import type { LockRow } from '../lock-row.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';
import { construction, measured } from '../oracle-cell.ts';
import { FAIL_FAST_PAUSED_MASTER, NO_PAIR, NO_SESSION, NO_TOKEN } from '../common-cells.ts';
import { redisLike } from '../common-remedy-cells.ts';

/** `--lock=redlock`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redlock.ts', import.meta.url).href,
  targetKey: (ns, a) => `${ns}lock:${a}`,
  clockAssumption: REDLOCK_CLOCKS,
  place: { store: 'Redis', from: 'fencepost' },
  faults: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    'pause-master': FAIL_FAST_PAUSED_MASTER,
    'kill-session': construction('n/a', NO_SESSION),
  },
  remedies: redisLike(
    construction(
      'n/a',
      `${NO_PAIR} (Redlock's 5 masters have no replicas; losing one's keys is the restart-empty column)`,
    ),
    true,
  ),
  nightly: 'every-cell',
  bench: { overhead: { floor: 'redis×5', timed: 'acquire' } },
} as const satisfies LockRow;
