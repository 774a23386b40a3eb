import type { RemoteEtcd, RemoteRedis } from './remote-servers.ts';

/** The most key names an error or a report lists (the count says the rest). */
const SHOWN = 5;

/** Keys found under the run's prefix, per server. */
export interface PrefixKeys {
  /** Server name → how many keys, and the first few names. */
  readonly on: Readonly<Record<string, { count: number; sample: string[] }>>;
  readonly total: number;
}

/**
 * The keys under `prefix` on every server of the target, every name — Redis by SCAN MATCH (it yields between
 * batches: a shared keyspace is never blocked, as KEYS would block it) on each master, since each keeps its own keys;
 * etcd by a range read of the prefix on one member (they agree through Raft). Only names under it are ever asked for.
 */
export async function allKeysUnder(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<Record<string, string[]>> {
  const on: Record<string, string[]> = {};
  for (const r of redis) {
    const keys = await r.withClient((c) => scanAll(c, prefix), 10_000);
    if (keys.length) on[r.name] = keys.sort();
  }
  if (etcd[0]) {
    const c = etcd[0].client();
    try {
      const keys = await c.getAll().prefix(prefix).keys();
      if (keys.length) on['etcd'] = keys.sort();
    } finally {
      c.close();
    }
  }
  return on;
}

/** The keys under the run's prefix, per server: how many and the first few names. */
export async function keysUnderPrefix(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<PrefixKeys> {
  const all = await allKeysUnder(prefix, redis, etcd);
  const on = Object.fromEntries(
    Object.entries(all).map(([s, k]) => [s, { count: k.length, sample: k.slice(0, SHOWN) }]),
  );
  return { on, total: Object.values(all).reduce((n, k) => n + k.length, 0) };
}

export async function scanAll(c: import('ioredis').Redis, match: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', `${match}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.filter((k) => k.startsWith(match));
}

/**
 * Deletes exactly the keys named, per server, in the order given (Redis UNLINK by name, etcd one delete per key),
 * and only names under `prefix` (checked again here, whoever made the list). Returns how many went, per server; a
 * server that does not answer is reported, not skipped silently.
 */
export async function removeNamedKeys(
  prefix: string,
  named: Readonly<Record<string, readonly string[]>>,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<{ removed: Record<string, number>; failed: Record<string, string> }> {
  const removed: Record<string, number> = {};
  const failed: Record<string, string> = {};
  const under = (server: string) => (named[server] ?? []).filter((k) => k.startsWith(prefix));
  for (const r of redis) {
    const keys = under(r.name);
    if (!keys.length) continue;
    try {
      removed[r.name] = await r.withClient(async (c) => {
        let n = 0;
        for (let i = 0; i < keys.length; i += 500) n += await c.unlink(...keys.slice(i, i + 500));
        return n;
      }, 10_000);
    } catch (err) {
      failed[r.name] = (err as Error).message;
    }
  }
  const keys = under('etcd');
  if (etcd[0] && keys.length) {
    const c = etcd[0].client(5000);
    try {
      let n = 0;
      for (const k of keys) n += Number((await c.delete().key(k).exec()).deleted);
      removed['etcd'] = n;
    } catch (err) {
      failed['etcd'] = (err as Error).message;
    } finally {
      c.close();
    }
  }
  return { removed, failed };
}

/** "3 keys on redis[0] (fp/lock:account-0, …), 1 on etcd (fp/lock/account-0)". */
export function describeKeys(keys: PrefixKeys): string {
  return Object.entries(keys.on)
    .map(([server, k]) => `${k.count} on ${server} (${k.sample.join(', ')}${k.count > k.sample.length ? ', …' : ''})`)
    .join('; ');
}
