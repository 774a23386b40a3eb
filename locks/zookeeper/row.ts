import type { LockRow } from '../lock-row.ts';
import { zookeeperLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';
import { ZOOKEEPER_LOST_REPLIES } from './lost-replies.ts';

/** `--lock=zookeeper`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./zookeeper.ts', import.meta.url).href,
  place: { store: 'ZooKeeper', from: 'fencepost' },
  lockNodeCreate: 'create',
  faults: zookeeperLike(),
  remedies: tokenLock(),
  lostReplies: ZOOKEEPER_LOST_REPLIES,
  nightly: 'every-cell',
  bench: { overhead: { floor: 'zookeeper', timed: 'acquire' } },
} as const satisfies LockRow;
