import type { LockRow } from '../lock-row.ts';
import { etcdLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';

/** `--lock=etcd`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./etcd.ts', import.meta.url).href,
  targetKey: (ns, a) => `${ns}lock/${a}`,
  place: { store: 'etcd', from: 'fencepost' },
  faults: etcdLike(),
  remedies: tokenLock(),
  nightly: 'every-cell',
  bench: { overhead: { floor: 'etcd', timed: 'acquire' } },
} as const satisfies LockRow;
