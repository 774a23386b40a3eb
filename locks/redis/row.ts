import type { LockRow } from '../lock-row.ts';
import { REDIS_MARGINS } from './margins.ts';
import { REDIS_LOST_REPLIES } from './lost-replies.ts';
import { construction, measured } from '../oracle-cell.ts';
import { NOT_HERE, NO_TOKEN } from '../common-cells.ts';
import { redisLike } from '../common-remedy-cells.ts';

/** `--lock=redis`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redis.ts', import.meta.url).href,
  targetKey: (ns, a) => `${ns}lock:${a}`,
  place: { store: 'Redis', from: 'fencepost' },
  faults: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    ...NOT_HERE,
  },
  remedies: redisLike(measured('lost'), true),
  margins: REDIS_MARGINS,
  lostReplies: REDIS_LOST_REPLIES,
  nightly: 'every-cell',
  bench: { overhead: { floor: 'redis', timed: 'acquire' } },
} as const satisfies LockRow;
