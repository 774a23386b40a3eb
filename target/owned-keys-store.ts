import os from 'node:os';
import { ownerAlive } from '../common/run-owner.ts';
import { planCleanup, type CleanupPlan } from './cleanup-plan.ts';
import { formatOwnedKeys, manifestKey, MANIFEST_MARK, parseOwnedKeys, type OwnedKeys } from './owned-keys.ts';
import { allKeysUnder, removeNamedKeys } from './prefix-keys.ts';
import type { RemoteEtcd, RemoteRedis } from './remote-servers.ts';

/**
 * Writes a run's record into the target's prefix, on every server the run uses, before any of its keys exists (each
 * Redis master keeps its own keys, so each gets it; etcd's members share one copy). Redis: `SET … NX` (a record is
 * never overwritten); etcd: a put. Returns the servers that took it and why the others did not (a Redis Cluster node
 * answers MOVED for a slot it does not own): a run refuses to start when none took it.
 */
export async function recordOwned(
  m: OwnedKeys,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<{ on: string[]; failed: Record<string, string> }> {
  const key = manifestKey(m.keyPrefix, m.id);
  const text = formatOwnedKeys(m);
  const on: string[] = [];
  const failed: Record<string, string> = {};
  for (const r of redis) {
    try {
      const ok = await r.withClient((c) => c.set(key, text, 'NX'));
      if (ok === 'OK') on.push(r.name);
      else failed[r.name] = `${key} exists already`;
    } catch (err) {
      failed[r.name] = (err as Error).message;
    }
  }
  if (etcd[0]) {
    const c = etcd[0].client();
    try {
      await c.put(key).value(text).exec();
      on.push('etcd');
    } catch (err) {
      failed['etcd'] = (err as Error).message;
    } finally {
      c.close();
    }
  }
  return { on, failed };
}

/** Every well-formed record in the prefix, with the server it was read from (one per server that has it). */
export async function readRecords(
  keyPrefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<(OwnedKeys & { from: string })[]> {
  const out: (OwnedKeys & { from: string })[] = [];
  const marked = keyPrefix + MANIFEST_MARK;
  for (const r of redis) {
    const texts = await r.withClient(async (c) => {
      const keys = (await allKeysUnder(marked, [r], []))[r.name] ?? [];
      return keys.length ? await c.mget(...keys) : [];
    }, 10_000);
    for (const t of texts) {
      const m = t === null ? null : parseOwnedKeys(t, keyPrefix);
      if (m) out.push({ ...m, from: r.name });
    }
  }
  if (etcd[0]) {
    const c = etcd[0].client(5000);
    try {
      for (const t of Object.values(await c.getAll().prefix(marked).strings())) {
        const m = parseOwnedKeys(t, keyPrefix);
        if (m) out.push({ ...m, from: 'etcd' });
      }
    } finally {
      c.close();
    }
  }
  return out;
}

/**
 * The end of a run: every key in its namespace, then its record (last, so a removal cut short is found again by
 * `cleanup --target`). Only the run's own names: another run's, or another team's, keys under the prefix stay.
 */
export async function removeOwned(
  m: OwnedKeys,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
): Promise<{ removed: Record<string, number>; failed: Record<string, string> }> {
  const removed: Record<string, number> = {};
  const failed: Record<string, string> = {};
  const record = manifestKey(m.keyPrefix, m.id);
  const each: [string, RemoteRedis[], RemoteEtcd[]][] = [
    ...redis.map((r): [string, RemoteRedis[], RemoteEtcd[]] => [r.name, [r], []]),
    ...(etcd[0] ? [['etcd', [], [...etcd]] as [string, RemoteRedis[], RemoteEtcd[]]] : []),
  ];
  for (const [name, r, e] of each) {
    try {
      const found = (await allKeysUnder(m.namespace, r, e))[name] ?? [];
      const keys = await removeNamedKeys(m.keyPrefix, { [name]: found }, r, e);
      const rec = keys.failed[name] ? keys : await removeNamedKeys(m.keyPrefix, { [name]: [record] }, r, e);
      if (rec.failed[name]) failed[name] = rec.failed[name];
      else removed[name] = keys.removed[name] ?? 0;
    } catch (err) {
      failed[name] = (err as Error).message;
    }
  }
  return { removed, failed };
}

/** This machine, now: what tells a live run's record from a dead one's. */
export function thisMachine(): { host: string; now: number; alive: (pid: number, pidStart: number) => boolean } {
  return {
    host: os.hostname(),
    now: Date.now(),
    alive: (pid, pidStart) => ownerAlive({ pid, startTime: pidStart, dirs: [] }),
  };
}

/**
 * Every key under the prefix sorted by the records of the runs that made them (records from the prefix, and any
 * `more` read from run folders): what `cleanup --target` would delete, leave for a live run, and list as not ours.
 */
export async function surveyPrefix(
  keyPrefix: string,
  redis: readonly RemoteRedis[],
  etcd: readonly RemoteEtcd[],
  opts: { deleteUnrecorded?: boolean; more?: readonly (OwnedKeys & { from: string })[] } = {},
): Promise<CleanupPlan> {
  const records = [...(await readRecords(keyPrefix, redis, etcd)), ...(opts.more ?? [])];
  const found = await allKeysUnder(keyPrefix, redis, etcd);
  return planCleanup(keyPrefix, records, found, thisMachine(), opts.deleteUnrecorded ?? false);
}
