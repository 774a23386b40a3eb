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
 * The keys under the run's prefix on every server of the target — Redis by SCAN MATCH (it yields between batches:
 * a shared keyspace is never blocked, as KEYS would block it) on each master, since each keeps its own keys; etcd by
 * a range read of the prefix on one member (they agree through Raft). Only names under the prefix are ever asked for.
 */
export async function keysUnderPrefix(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<PrefixKeys> {
  const on: Record<string, { count: number; sample: string[] }> = {};
  for (const r of redis) {
    const keys = await r.withClient((c) => scanAll(c, prefix));
    if (keys.length) on[r.name] = { count: keys.length, sample: keys.sort().slice(0, SHOWN) };
  }
  if (etcd[0]) {
    const c = etcd[0].client();
    try {
      const keys = await c.getAll().prefix(prefix).keys();
      if (keys.length) on['etcd'] = { count: keys.length, sample: keys.sort().slice(0, SHOWN) };
    } finally {
      c.close();
    }
  }
  return { on, total: Object.values(on).reduce((n, k) => n + k.count, 0) };
}

async function scanAll(c: import('ioredis').Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/**
 * Deletes every key under the prefix, and only those: on Redis each key SCAN found under it (by name, UNLINK), on
 * etcd the prefix's range. Returns how many went, per server. A server that does not answer is reported, not skipped
 * silently: its keys stay, and `fencepost cleanup --target` removes them later.
 */
export async function removeKeysUnderPrefix(
  prefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<{ removed: Record<string, number>; failed: Record<string, string> }> {
  const removed: Record<string, number> = {};
  const failed: Record<string, string> = {};
  for (const r of redis) {
    try {
      removed[r.name] = await r.withClient(async (c) => {
        const keys = await scanAll(c, prefix);
        // Names re-checked here: nothing SCAN returned outside the prefix is ever deleted.
        const ours = keys.filter((k) => k.startsWith(prefix));
        for (let i = 0; i < ours.length; i += 500) await c.unlink(...ours.slice(i, i + 500));
        return ours.length;
      }, 10_000);
    } catch (err) {
      failed[r.name] = (err as Error).message;
    }
  }
  if (etcd[0]) {
    const c = etcd[0].client(5000);
    try {
      removed['etcd'] = Number((await c.delete().prefix(prefix).exec()).deleted);
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
