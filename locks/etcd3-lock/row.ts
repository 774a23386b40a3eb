import type { LockRow } from '../lock-row.ts';
import { construction, predicted } from '../oracle-cell.ts';
import { NOT_HERE, NO_PAIR, NO_REDIS } from '../common-cells.ts';
import { NO_RETRY_REMEDY, SELF_RENEWING } from '../common-remedy-cells.ts';

/** `--lock=etcd3-lock`: its strategy, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./etcd3-lock.ts', import.meta.url).href,
  place: { store: 'etcd', from: 'npm' },
  faults: {
    'no-fault': predicted('safe', 'a create-if-absent txn on etcd, the key on a lease'),
    'pause-holder': predicted(
      'lost',
      "the holder's process keeps the lease alive; paused past its TTL, etcd expires the lease and deletes the key, another client creates it, and on SIGCONT the holder writes — the Lock cannot tell it (its lease is private)",
    ),
    'restart-empty': construction('n/a', NO_REDIS),
    clock: construction(
      'n/a',
      'the fault cannot reach it: the LD_PRELOAD clock shim cannot move a Go binary (etcd), and leases count down on the monotonic clock',
    ),
    fencing: predicted(
      'safe',
      "the key's create revision grows with every holder (etcd's revision is global and only grows): the resumed holder's write carries a smaller one and is refused as stale",
    ),
    'restart-fenced': construction('n/a', NO_REDIS),
    ...NOT_HERE,
  },
  remedies: {
    failover: construction('n/a', NO_PAIR),
    'long-work': predicted('safe', 'the library keeps the lease alive every TTL/3 while the section runs'),
    ...SELF_RENEWING,
    'restart-delay': construction('n/a', NO_REDIS),
    'restart-retry': NO_RETRY_REMEDY,
    'restart-aof': construction('n/a', NO_REDIS),
    'delay-write': predicted(
      'lost',
      'the held write arrives after the lease ran out and another client wrote; nothing refuses it without the token',
    ),
    'delay-write-fenced': predicted(
      'safe',
      "the successor's create revision is larger: the held write is refused as stale",
    ),
    'failover-fenced': construction('n/a', NO_PAIR),
  },
  findings: {
    package: "etcd3@1.1.2's own `client.lock(key)`",
    usage:
      "`client.lock(key).ttl(seconds)`, `await lock.acquire()` (one attempt; the waiting loop is ours: 100 ms between tries), the work, `await lock.release()`; `new Etcd3({ hosts, auth })`. Token: the key's create revision, read with one `get`.",
    verdict:
      'linearizable and renewed by the library, so long work is safe; a paused holder writes unless the write is fenced by the create revision — which the library does not hand out.',
    advice:
      "read the key's create revision after acquiring and fence the write with it: that made the paused-holder cell safe. The library's `lost` event is on a private lease: you cannot learn that the lock was lost.",
    lockCheck: 'passed, all 10 steps (token = create revision, growing)',
  },
  nightly: ['no-fault', 'fencing'],
} as const satisfies LockRow;
