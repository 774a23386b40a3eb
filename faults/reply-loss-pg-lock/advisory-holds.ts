/**
 * What the Postgres reply-loss faults (reply-loss-pg-lock, reply-loss-pg-unlock) read and judge alike: the advisory
 * key a statement names, and the server's record (pg_locks) of which of the client's backends holds it.
 */

/** One row of pg_locks joined to the client's sessions (cluster/servers/pg-node.ts advisoryLocksOf). */
export interface AdvisoryLockRow {
  pid: number;
  classid: string | null;
  objid: string | null;
  objsubid: number | null;
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
