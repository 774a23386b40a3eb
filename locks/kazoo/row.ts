import { debianPythonHas } from '../../cluster/requirement.ts';
import type { LockRow } from '../lock-row.ts';
import { zookeeperLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';

/** `--lock=kazoo`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./kazoo.json', import.meta.url).href,
  foreign: {
    library: {
      what: "kazoo (Debian's python3-kazoo)",
      packages: ['python3-kazoo'],
      present: () => debianPythonHas('kazoo/recipe/lock.py'),
    },
    compiled: false,
    advice:
      "fence the write with the lock node's czxid (one `exists` after `acquire`: a later holder's is always larger) — unfenced, a holder paused past its session writes when it resumes. Listen for the session's SUSPENDED/LOST states and stop writing on them.",
  },
  place: { store: 'ZooKeeper', from: 'Python' },
  // kazoo and Curator: ZooKeeper's sequential-ephemeral recipe. A holder paused past its session loses its node and
  // writes on when resumed (lost); its czxid fences it.
  faults: zookeeperLike(),
  // kazoo, Curator, the Go Mutex: the session/lease is kept alive by the library's own thread, as for etcd/zookeeper.
  remedies: tokenLock(),
  nightly: 'every-cell',
} as const satisfies LockRow;
