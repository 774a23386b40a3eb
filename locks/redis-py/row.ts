import { debianPythonHas } from '../../cluster/requirement.ts';
import type { LockRow } from '../lock-row.ts';
import { construction, measured } from '../oracle-cell.ts';
import { NOT_HERE, NO_TOKEN } from '../common-cells.ts';
import { redisLike } from '../common-remedy-cells.ts';

/** `--lock=redis-py`: its manifest, and what the oracle expects of it under each fault and remedy. */
export default {
  module: new URL('./redis-py.json', import.meta.url).href,
  foreign: {
    library: {
      what: "redis-py (Debian's python3-redis)",
      packages: ['python3-redis'],
      present: () => debianPythonHas('redis/lock.py'),
    },
    compiled: false,
    advice:
      'a paused holder writes after its lock expired, and redis-py hands out no token (the value is a random uuid): fence the write with a version you read (`UPDATE … WHERE version = <read>`, a conditional put), or take a lock with a token (kazoo, python-etcd3). Call `reacquire()` well inside the timeout if work may run long; a Redis restart or failover forgets the lock.',
  },
  place: { store: 'Redis', from: 'Python' },
  // The real libraries of other languages (locks/): each expects what its algorithm promises, as its TS twin above.
  // redis-py's Lock is the single-Redis SET NX PX lock: it loses what --lock=redis loses, and has no token.
  faults: {
    'no-fault': measured('safe'),
    'pause-holder': measured('lost'),
    'restart-empty': measured('lost'),
    clock: measured('lost'),
    fencing: construction('refuse', NO_TOKEN),
    'restart-fenced': construction('refuse', NO_TOKEN),
    ...NOT_HERE,
  },
  // The real libraries of other languages (locks/). redis-py's Lock: a single Redis with a TTL it renews only when
  // asked (reacquire), so it fails and is remedied like --lock=redis; it runs on the failover pair like redis.
  remedies: redisLike(measured('lost'), true),
  nightly: 'every-cell',
} as const satisfies LockRow;
