import { debianPythonHas } from '../../cluster/requirement.ts';
import type { LockRow } from '../lock-row.ts';
import { construction, measured } from '../oracle-cell.ts';
import { NO_PAIR, NO_REDIS, etcdLike } from '../common-cells.ts';
import { NO_RETRY_REMEDY } from '../common-remedy-cells.ts';

/** `--lock=python-etcd3`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./python-etcd3.json', import.meta.url).href,
  foreign: {
    library: {
      what: "python-etcd3 (Debian's python3-etcd3)",
      packages: ['python3-etcd3'],
      present: () => debianPythonHas('etcd3/locks.py'),
    },
    compiled: false,
    advice:
      "fence the write with the key's create revision (one `get` after `acquire`: the library does not return it), and call `refresh()` yourself well inside the TTL: 0.12 renews the lease only then. On Debian 12 a contended `acquire` dies inside the library (0.12 with tenacity 8): catch it and retry, or use a tenacity older than 8 (the fix, kragniz/python-etcd3#1109, is unreleased).",
  },
  place: { store: 'etcd', from: 'Python' },
  // python-etcd3: a leased key. Paused past its lease, the holder writes on (lost); the create revision fences it.
  faults: etcdLike(),
  // python-etcd3's Lock has a lease and no keep-alive: it expires after its TTL unless refresh() is called. Long work
  // outlives it (lost) unless --watchdog refreshes it (safe); a paused holder cannot refresh (lost, with or without
  // the watchdog); its create revision fences a late or paused write (safe).
  remedies: {
    failover: construction('n/a', NO_PAIR),
    'long-work': measured('lost'),
    'long-work-watchdog': measured('safe'),
    'pause-watchdog': measured('lost'),
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': measured('lost'),
    'delay-write-fenced': measured('safe'),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  nightly: 'every-cell',
} as const satisfies LockRow;
