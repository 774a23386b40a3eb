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
} as const;
