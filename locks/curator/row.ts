import fs from 'node:fs';
import { onPath } from '../../cluster/requirement.ts';
import type { LockRow } from '../lock-row.ts';
import { CURATOR_MARGINS } from './margins.ts';
import { CURATOR_LOST_REPLIES } from './lost-replies.ts';
import { zookeeperLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';

/** `--lock=curator`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./curator.json', import.meta.url).href,
  foreign: {
    library: {
      what: 'Apache Curator (/usr/share/java/curator-recipes.jar) and javac to compile its glue',
      packages: ['libcurator-recipes-java', 'default-jdk-headless'],
      present: () => onPath('javac') && fs.existsSync('/usr/share/java/curator-recipes.jar'),
    },
    compiled: true,
    advice:
      "fence the write with the lock node's czxid (its path from `getLockPath()`) — unfenced, a JVM paused past its session writes when it resumes (the Kleppmann result, measured). Add a ConnectionStateListener and stop writing on SUSPENDED and LOST.",
  },
  place: { store: 'ZooKeeper', from: 'Java' },
  // InterProcessMutex's node is `_c_<guid>-lock-` (protection mode), made by ZooKeeper 3.8's create(…, stat, ttl).
  lockNodeCreate: 'create2',
  faults: zookeeperLike(),
  remedies: tokenLock(),
  margins: CURATOR_MARGINS,
  lostReplies: CURATOR_LOST_REPLIES,
  nightly: 'every-cell',
} as const satisfies LockRow;
