import type { LockLibrary } from '../cluster/provision.ts';
import type { NpmLockPackage } from './npm-lock-cache.ts';

/**
 * The built-in lock strategies: `--lock=<name>` → its module, in the order the matrix and `--help` show them.
 * A module is loaded only when its strategy runs (the lock libraries take seconds to import on 2 cores), so
 * `--help` and argument errors answer at once. Everything else about a strategy — its servers, token, default
 * faults — is in its own file; a new built-in is that file, one line here and one row of the oracle.
 */
export const BUILTIN_STRATEGIES = {
  none: new URL('./none/none.ts', import.meta.url).href,
  redis: new URL('./redis/redis.ts', import.meta.url).href,
  redlock: new URL('./redlock/redlock.ts', import.meta.url).href,
  'redlock-npm': new URL('./redlock-npm/redlock-npm.ts', import.meta.url).href,
  etcd: new URL('./etcd/etcd.ts', import.meta.url).href,
  zookeeper: new URL('./zookeeper/zookeeper.ts', import.meta.url).href,
  postgres: new URL('./postgres/postgres.ts', import.meta.url).href,
  // The real libraries of other languages (docs/locks.md#the-real-libraries-python-java-go): a manifest of locks/ each, the glue beside
  // it, run through the lock-client protocol like a user's own manifest. Their packages and builds: FOREIGN_BUILTINS.
  'redis-py': new URL('./redis-py/redis-py.json', import.meta.url).href,
  kazoo: new URL('./kazoo/kazoo.json', import.meta.url).href,
  'python-etcd3': new URL('./python-etcd3/python-etcd3.json', import.meta.url).href,
  'etcd-go': new URL('./etcd-go/etcd-go.json', import.meta.url).href,
  curator: new URL('./curator/curator.json', import.meta.url).href,
  // The npm lock libraries Node developers install, each as its README uses it (docs/findings.md has what each did):
  // installed into the per-machine cache on first use (NPM_BUILTINS), never dependencies of fencepost.
  'redlock-v4': new URL('./redlock-v4/redlock-v4.ts', import.meta.url).href,
  'redlock-sesame': new URL('./redlock-sesame/redlock-sesame.ts', import.meta.url).href,
  'redis-semaphore': new URL('./redis-semaphore/redis-semaphore.ts', import.meta.url).href,
  'redis-semaphore-redlock': new URL('./redis-semaphore-redlock/redis-semaphore-redlock.ts', import.meta.url).href,
  'redlock-universal': new URL('./redlock-universal/redlock-universal.ts', import.meta.url).href,
  'redis-lock': new URL('./redis-lock/redis-lock.ts', import.meta.url).href,
  'simple-redis-mutex': new URL('./simple-redis-mutex/simple-redis-mutex.ts', import.meta.url).href,
  'etcd3-lock': new URL('./etcd3-lock/etcd3-lock.ts', import.meta.url).href,
  'advisory-lock': new URL('./advisory-lock/advisory-lock.ts', import.meta.url).href,
} as const;

/**
 * The npm rows' pinned installs (locks/<row>/npm/, locks/npm-lock-cache.ts): installed into the cache before a
 * run's clients start. etcd3-lock has none: the `etcd3` package is fencepost's own dependency already.
 */
export const NPM_BUILTINS = {
  'redlock-v4': 'redlock-v4',
  'redlock-sesame': 'redlock-sesame',
  'redis-semaphore': 'redis-semaphore',
  'redis-semaphore-redlock': 'redis-semaphore',
  'redlock-universal': 'redlock-universal',
  'redis-lock': 'redis-lock',
  'simple-redis-mutex': 'simple-redis-mutex',
  'advisory-lock': 'advisory-lock',
} as const satisfies Partial<Record<keyof typeof BUILTIN_STRATEGIES, NpmLockPackage>>;

/**
 * What each built-in foreign row needs beyond its servers: the provisioning requirement of its library (Debian's
 * packages, cluster/provision.ts) and whether its glue is compiled — then `<command> --build` runs once before a
 * run's clients start, so no client's connect waits for a compiler (it is cached per machine: a no-op after).
 */
export const FOREIGN_BUILTINS = {
  'redis-py': { library: 'redis-py', compiled: false },
  kazoo: { library: 'kazoo', compiled: false },
  'python-etcd3': { library: 'python-etcd3', compiled: false },
  'etcd-go': { library: 'etcd-go', compiled: true },
  curator: { library: 'curator', compiled: true },
} as const satisfies Partial<Record<keyof typeof BUILTIN_STRATEGIES, { library: LockLibrary; compiled: boolean }>>;
