import type { LockRow } from '../lock-row.ts';
import { etcdLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';

/** `--lock=etcd-go`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./etcd-go.json', import.meta.url).href,
  foreign: { library: 'etcd-go', compiled: true },
  place: { store: 'etcd', from: 'Go' },
  // etcd's own Go Mutex: a session lease (lost under a pause past it), m.Header().Revision fences.
  faults: etcdLike(),
  remedies: tokenLock(),
  nightly: 'every-cell',
} as const satisfies LockRow;
