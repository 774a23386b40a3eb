import type { LockLibrary } from '../../cluster/provision.ts';

/**
 * The built-in lock strategies: `--lock=<name>` → its module, in the order the matrix and `--help` show them.
 * A module is loaded only when its strategy runs (the lock libraries take seconds to import on 2 cores), so
 * `--help` and argument errors answer at once. Everything else about a strategy — its servers, token, default
 * faults — is in its own file; a new built-in is that file, one line here and one row of the oracle.
 */
export const BUILTIN_STRATEGIES = {
  none: new URL('./none.ts', import.meta.url).href,
  redis: new URL('./redis.ts', import.meta.url).href,
  redlock: new URL('./redlock.ts', import.meta.url).href,
  'redlock-npm': new URL('./redlock-npm.ts', import.meta.url).href,
  etcd: new URL('./etcd.ts', import.meta.url).href,
  zookeeper: new URL('./zookeeper.ts', import.meta.url).href,
  postgres: new URL('./postgres.ts', import.meta.url).href,
  // The real libraries of other languages (docs/locks.md#the-real-libraries-python-java-go): a manifest of locks/ each, the glue beside
  // it, run through the lock-client protocol like a user's own manifest. Their packages and builds: FOREIGN_BUILTINS.
  'redis-py': new URL('../../locks/redis-py.json', import.meta.url).href,
  kazoo: new URL('../../locks/kazoo.json', import.meta.url).href,
  'python-etcd3': new URL('../../locks/python-etcd3.json', import.meta.url).href,
  'etcd-go': new URL('../../locks/etcd-go.json', import.meta.url).href,
  curator: new URL('../../locks/curator.json', import.meta.url).href,
} as const;

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
