import fs from 'node:fs';
import { onPath } from '../../cluster/requirement.ts';
import type { LockRow } from '../lock-row.ts';
import { etcdLike } from '../common-cells.ts';
import { tokenLock } from '../common-remedy-cells.ts';

/** `--lock=etcd-go`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./etcd-go.json', import.meta.url).href,
  foreign: {
    library: {
      what: "Go and etcd's Go client source (GOPATH /usr/share/gocode) to build the concurrency.Mutex glue",
      packages: ['golang-go', 'golang-etcd-server-dev'],
      present: () =>
        onPath('go') && fs.existsSync('/usr/share/gocode/src/go.etcd.io/etcd/clientv3/concurrency/mutex.go'),
    },
    compiled: true,
    advice:
      'fence the write with `m.Header().Revision` (the revision that granted the lock) — unfenced, a holder whose session expired during a pause writes when it resumes; watch `session.Done()` and stop writing when it closes.',
  },
  place: { store: 'etcd', from: 'Go' },
  // etcd's own Go Mutex: a session lease (lost under a pause past it), m.Header().Revision fences.
  faults: etcdLike(),
  remedies: tokenLock(),
  nightly: 'every-cell',
} as const satisfies LockRow;
