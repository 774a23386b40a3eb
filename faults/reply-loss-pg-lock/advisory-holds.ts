import { setTimeout as sleepFor } from 'node:timers/promises';
import type { AdvisoryLockRow } from '../../cluster/servers/pg-node.ts';
import { LOCK_SESSIONS, clientRoutes } from '../../nemesis/client-routes.ts';
import type { FaultContext } from '../../nemesis/fault.ts';
import type { TcpProxy } from '../../nemesis/proxy/tcp-proxy.ts';
import { LOCK_ROWS } from '../../locks/registry.ts';
import { BUILTIN_LOCKS, isBuiltinLock } from '../../workloads/lock-names.ts';
import type { LockRow } from '../../locks/lock-row.ts';

/**
 * What the Postgres reply-loss faults (reply-loss-pg-lock, reply-loss-pg-unlock) share: the lock they aim at, the
 * client's lock-session route, the advisory key a statement names, and the server's record of who holds it.
 */

/**
 * The built-in locks whose lock is an advisory lock in a Postgres session of their own, opened on
 * LockContext.postgresUrl and named for the client (their row's `postgresSession`: advisory-lock@2.0.0, whose acquire
 * and release are `SELECT pg_advisory_lock(k1, k2)` / `pg_advisory_unlock(k1, k2)`): the statements the aim names,
 * and the sessions the server is read by.
 */
export const AIMABLE_LOCKS: readonly string[] = BUILTIN_LOCKS.filter(
  (l) => (LOCK_ROWS[l] as LockRow).postgresSession === true,
);

/** How often the wait for the drop looks at the proxy's record of dropped replies. */
const DROP_POLL_MS = 2;

/**
 * The refusal both faults share: a lock that keeps nothing in Postgres, or one whose lock is no advisory lock in a
 * session of its own (`--lock=postgres` takes none at all: its row says why).
 */
export function pgAimRefusal(fault: string, aimsAt: string) {
  return (_servers: unknown, lock: string): string | null => {
    if (AIMABLE_LOCKS.includes(lock)) return null;
    const row = isBuiltinLock(lock) ? (LOCK_ROWS[lock] as LockRow) : undefined;
    if (row && row.place.store !== 'Postgres') return `--lock=${lock} keeps no lock in Postgres`;
    const why = row?.noLease ? ` (its row: ${row.noLease})` : '';
    return `${fault} aims at ${aimsAt} on a Postgres session of the lock's own, known for --lock=${AIMABLE_LOCKS.join(', ')} only${why}`;
  };
}

/** Client `slot`'s own route for its lock's Postgres sessions (framed as Postgres), when the run made one. */
export function lockRoute(ctx: Pick<FaultContext, 'proxies'>, slot: number): TcpProxy | undefined {
  return clientRoutes(ctx.proxies, slot).get(LOCK_SESSIONS);
}

/** Why a run's clients give a Postgres reply-loss fault nothing to aim at. */
export function noLockRoute(env: Pick<FaultContext, 'proxies' | 'cluster'>): string | null {
  if (!env.cluster.pg) return 'the run has no Postgres';
  return lockRoute(env, 0) ? null : "the clients' lock sessions do not reach Postgres through proxies of their own";
}

/**
 * The advisory key a statement names, as `k1,k2` (the two-int4 form, advisory-lock's) or `k` (the bigint form):
 * `SELECT pg_advisory_unlock(-1409283, 77)` → `-1409283,77`. Undefined when it names none with literal keys.
 */
export function statementKey(sql: string | undefined): string | undefined {
  const m = /pg_(?:try_)?advisory_(?:un)?lock(?:_shared)?\s*\(\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?\)/i.exec(sql ?? '');
  if (!m) return undefined;
  return m[2] === undefined ? m[1] : `${m[1]},${m[2]}`;
}

/** An oid as the int4 it was given as (pg_locks prints classid and objid unsigned). */
function int4(oid: string): number {
  const n = Number(oid);
  return n >= 2 ** 31 ? n - 2 ** 32 : n;
}

/**
 * pg_locks' row of an advisory lock as `statementKey` writes its key: objsubid 2 is the two-int4 form (classid,
 * objid), 1 the bigint form (classid its high half, objid its low).
 */
export function rowKey(row: Pick<AdvisoryLockRow, 'classid' | 'objid' | 'objsubid'>): string | undefined {
  if (row.classid === null || row.objid === null) return undefined;
  if (row.objsubid === 2) return `${int4(row.classid)},${int4(row.objid)}`;
  return BigInt.asIntN(64, (BigInt(row.classid) << 32n) | BigInt(row.objid)).toString();
}

/**
 * The client's lock sessions and what each holds, by backend pid: the advisory keys granted to it, space-separated
 * ('' for an open session that holds none). A pid absent is a session that no longer exists.
 */
export type Holds = Record<string, string>;

export function holdsOf(rows: readonly AdvisoryLockRow[]): Holds {
  const holds: Record<string, string[]> = {};
  for (const row of rows) {
    const keys = (holds[String(row.pid)] ??= []);
    const key = rowKey(row);
    if (key !== undefined) keys.push(key);
  }
  return Object.fromEntries(Object.entries(holds).map(([pid, keys]) => [pid, keys.sort().join(' ')]));
}

/** The backends in `holds` that hold `key`. */
export function holdersOf(holds: Readonly<Holds> | undefined, key: string): string[] {
  return Object.entries(holds ?? {})
    .filter(([, keys]) => keys.split(' ').includes(key))
    .map(([pid]) => pid);
}

/** Reads the sessions named `session` on the run's Postgres, over the superuser session kept open. */
export async function readHolds(ctx: Pick<FaultContext, 'cluster'>, session: string): Promise<Holds> {
  return holdsOf(await ctx.cluster.pg!.advisoryLocksOf(session));
}

/** Waits until the route dropped a reply after its first `before`; false when the wait was ended first. */
export async function waitForDrop(proxy: TcpProxy, before: number, signal: AbortSignal): Promise<boolean> {
  const dropped = () => proxy.droppedReplies().length > before;
  while (!signal.aborted && !dropped()) await sleepFor(DROP_POLL_MS, undefined, { signal }).catch(() => {});
  return dropped();
}
