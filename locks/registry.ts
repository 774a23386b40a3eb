import type { RequirementSpec } from '../cluster/requirement.ts';
import { LOCK_ORIGINS, type ForeignLibrary, type LockRow } from './lock-row.ts';
import none from './none/row.ts';
import redis from './redis/row.ts';
import redlock from './redlock/row.ts';
import redlockNpm from './redlock-npm/row.ts';
import etcd from './etcd/row.ts';
import zookeeper from './zookeeper/row.ts';
import postgres from './postgres/row.ts';
import redisPy from './redis-py/row.ts';
import kazoo from './kazoo/row.ts';
import pythonEtcd3 from './python-etcd3/row.ts';
import etcdGo from './etcd-go/row.ts';
import curator from './curator/row.ts';
import redlockV4 from './redlock-v4/row.ts';
import redlockSesame from './redlock-sesame/row.ts';
import redisSemaphore from './redis-semaphore/row.ts';
import redisSemaphoreRedlock from './redis-semaphore-redlock/row.ts';
import redlockUniversal from './redlock-universal/row.ts';
import redisLock from './redis-lock/row.ts';
import simpleRedisMutex from './simple-redis-mutex/row.ts';
import etcd3Lock from './etcd3-lock/row.ts';
import advisoryLock from './advisory-lock/row.ts';
import sqlLease from './sql-lease/row.ts';
import sqlLeaseDbtime from './sql-lease-dbtime/row.ts';
import advisoryLockPgbouncer from './advisory-lock-pgbouncer/row.ts';
import advisoryLockPgbouncerSession from './advisory-lock-pgbouncer-session/row.ts';
import advisoryXactLockPgbouncer from './advisory-xact-lock-pgbouncer/row.ts';
import k8sLease from './k8s-lease/row.ts';
import dynamodbLockClient from './dynamodb-lock-client/row.ts';
import dynamodbLockClientLocalTime from './dynamodb-lock-client-local-time/row.ts';

/**
 * The built-in locks: `--lock=<name>` → its folder's row (locks/<name>/row.ts), in the order the matrix and `--help`
 * show them. A row names its module, which is loaded only when its lock runs (the lock libraries take seconds to
 * import on 2 cores), so `--help` and argument errors answer at once. A new built-in is its folder, its import and its line here.
 */
export const LOCK_ROWS = {
  none,
  redis,
  redlock,
  'redlock-npm': redlockNpm,
  etcd,
  zookeeper,
  postgres,
  // The real libraries of other languages (docs/locks.md#the-real-libraries-python-java-go): a manifest each, the
  // glue beside it, run through the lock-client protocol like a user's own manifest.
  'redis-py': redisPy,
  kazoo,
  'python-etcd3': pythonEtcd3,
  'etcd-go': etcdGo,
  curator,
  // The npm lock libraries Node developers install, each as its README uses it (docs/findings.md has what each did):
  // installed into the per-machine cache on first use, never dependencies of fencepost.
  'redlock-v4': redlockV4,
  'redlock-sesame': redlockSesame,
  'redis-semaphore': redisSemaphore,
  'redis-semaphore-redlock': redisSemaphoreRedlock,
  'redlock-universal': redlockUniversal,
  'redis-lock': redisLock,
  'simple-redis-mutex': simpleRedisMutex,
  'etcd3-lock': etcd3Lock,
  'advisory-lock': advisoryLock,
  'sql-lease': sqlLease,
  'sql-lease-dbtime': sqlLeaseDbtime,
  // Postgres advisory locks behind a pooler: a pgbouncer of the run's in front of its Postgres.
  'advisory-lock-pgbouncer': advisoryLockPgbouncer,
  'advisory-lock-pgbouncer-session': advisoryLockPgbouncerSession,
  'advisory-xact-lock-pgbouncer': advisoryXactLockPgbouncer,
  // client-go's leader election, emulated over the run's etcd (not the Kubernetes API server).
  'k8s-lease': k8sLease,
  // A lock in DynamoDB: a dynalite of the run's, in memory, behind a check of the run's access key id.
  'dynamodb-lock-client': dynamodbLockClient,
  'dynamodb-lock-client-local-time': dynamodbLockClientLocalTime,
} as const satisfies Record<string, LockRow>;

type Rows = typeof LOCK_ROWS;
export type BuiltinLock = keyof Rows;
type RowsWith<F extends keyof LockRow> = {
  [K in BuiltinLock]: Rows[K] extends { readonly [P in F]: unknown } ? K : never;
}[BuiltinLock];

/** The rows that are npm packages, and the lock folder whose `npm/` pins each (npm-lock-cache.ts installs it). */
export type NpmLock = RowsWith<'npm'>;
export type NpmLockPackage = Rows[NpmLock]['npm'];

/** The rows in another language, each with its library's provisioning requirement and whether its glue compiles. */
export type ForeignLock = RowsWith<'foreign'>;

const locks = Object.keys(LOCK_ROWS) as BuiltinLock[];
const rowsWith = <F extends 'npm' | 'foreign'>(field: F) =>
  Object.fromEntries(locks.flatMap((l) => (field in LOCK_ROWS[l] ? [[l, (LOCK_ROWS[l] as LockRow)[field]]] : [])));

/** The key a built-in's lock takes for an account in a run's namespace on a target, when fencepost prefixes its keys. */
export function targetKeyOf(lock: string): ((ns: string, account: string) => string) | undefined {
  return Object.hasOwn(LOCK_ROWS, lock) ? (LOCK_ROWS[lock as BuiltinLock] as LockRow).targetKey : undefined;
}

/** `--lock=<name>` → its module's URL (a strategy's `.ts`, a foreign row's manifest). */
export const BUILTIN_STRATEGIES = Object.fromEntries(locks.map((l) => [l, LOCK_ROWS[l].module])) as Record<
  BuiltinLock,
  string
>;

/** The npm rows' pinned installs, installed into the cache before a run's clients start. */
export const NPM_BUILTINS = rowsWith('npm') as { readonly [K in NpmLock]: Rows[K]['npm'] };

/** What each foreign row needs beyond its servers: its library and whether its glue is compiled. */
export const FOREIGN_BUILTINS = rowsWith('foreign') as { readonly [K in ForeignLock]: ForeignLibrary };

/**
 * The foreign rows' libraries, for a caller that provisions them all (doctor, the servers tier's setup): by
 * language — Python, Java, Go, as docs/locks.md installs them — and in registry order within one.
 */
export function foreignLibraries(): RequirementSpec[] {
  const rank = (l: ForeignLock) => LOCK_ORIGINS.indexOf(LOCK_ROWS[l].place.from);
  const foreign = (Object.keys(FOREIGN_BUILTINS) as ForeignLock[]).sort((a, b) => rank(a) - rank(b));
  return foreign.map((l) => FOREIGN_BUILTINS[l].library);
}
