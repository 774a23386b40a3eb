import { Redis } from 'ioredis';
import type { RedisServer } from '../cluster/node.ts';

/**
 * The lock keys of one account, whatever prefix the strategy uses (`lock:account-0` for ours,
 * `fencepost:redlock-npm:account-0` for the redlock package, something else for a plugin): keys ending in
 * `account-<n>`. The dataset is a handful of lock keys, so KEYS costs microseconds; it skips expired keys.
 */
/** A key's content as RedisKeyProbe.contentOf reads it: a string's value, a hash's fields, or another type's name. */
export type KeyContent = { value: string } | { fields: Record<string, string> } | { type: string };

/** A PTTL read, and when the harness made it (performance.now(), ms): `spreadMs` is the read's round trip. */
export interface PttlSample {
  readonly pttlMs: number;
  readonly atMs: number;
  readonly spreadMs: number;
}

export function accountKeyPattern(account: number): string {
  return `*account-${account}`;
}

/**
 * Asks Redis nodes directly (their real ports, not the clients' proxies) whether they hold a lock key, over
 * connections kept open for the whole run. Why kept open: restart-empty and clock aim at a critical section
 * that lasts about --think ms, and a fresh connection per node per question cost 5–40 ms on a busy 2-core
 * machine — a good part of the window. A node that is down, paused or slow counts as not holding the key.
 */
export class RedisKeyProbe {
  private readonly conns = new Map<RedisServer, Redis>();

  private conn(node: RedisServer): Redis {
    let r = this.conns.get(node);
    if (!r) {
      r = new Redis({
        ...node.endpoint(),
        lazyConnect: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 500,
        commandTimeout: 300,
        // Nodes are killed and restarted by the faults: keep coming back quickly.
        retryStrategy: () => 20,
      });
      r.on('error', () => {});
      this.conns.set(node, r);
    }
    return r;
  }

  /** Open connections ahead of the first question (they are otherwise opened on first use). */
  warm(nodes: RedisServer[]): void {
    for (const n of nodes) this.conn(n);
  }

  /**
   * The nodes among `nodes` that have a lock key of `account` right now, the key names they have, and which
   * node has which (`keysOn`, by node name: the evidence a fault records of where the key was when it struck).
   */
  async holding(
    nodes: RedisServer[],
    account: number,
  ): Promise<{
    nodes: RedisServer[];
    keys: string[];
    keysOn: Record<string, string[]>;
    /** On a target's servers: each key's value (the holder's lock value), by node name; null where GET failed. */
    valuesOn: Record<string, Record<string, string | null>>;
    /** Running nodes whose question failed (past its timeout on a loaded machine): not known to be without the key. */
    unanswered: RedisServer[];
  }> {
    const unanswered: RedisServer[] = [];
    const found = await Promise.all(
      nodes.map(async (n) => {
        if (!n.running || n.paused) return [];
        try {
          return await this.keysOn(n, account);
        } catch {
          unanswered.push(n);
          return [];
        }
      }),
    );
    const keysOn: Record<string, string[]> = {};
    nodes.forEach((n, i) => {
      if (found[i].length) keysOn[n.name] = [...found[i]].sort();
    });
    const valuesOn = await this.valuesOn(nodes, keysOn);
    return {
      nodes: nodes.filter((_, i) => found[i].length > 0),
      keys: [...new Set(found.flat())].sort(),
      keysOn,
      valuesOn,
      unanswered,
    };
  }

  /**
   * A target's keys' values. Which holder a key belongs to is its value: after a restart, a key of the same name may
   * be a new holder's, granted on the emptied server between its start and this question — not the key the restart
   * kept. Only on a target (remote) node: on our own servers the restart's wipe is ours, and the aim is not slowed.
   */
  private async valuesOn(
    nodes: RedisServer[],
    keysOn: Record<string, string[]>,
  ): Promise<Record<string, Record<string, string | null>>> {
    const out: Record<string, Record<string, string | null>> = {};
    for (const n of nodes.filter((n) => n.remote && keysOn[n.name])) {
      out[n.name] = {};
      for (const k of keysOn[n.name])
        out[n.name][k] = await this.conn(n)
          .get(k)
          .catch(() => null);
    }
    return out;
  }

  /**
   * A target's server is shared with its owner's data: its keyspace may be large and KEYS would block it, and our
   * credentials may not list anything outside the run's prefix. There, SCAN (which yields between batches) for the
   * account's keys under the prefix only.
   */
  private async keysOn(n: RedisServer, account: number): Promise<string[]> {
    const r = this.conn(n);
    if (!n.remote) return r.keys(accountKeyPattern(account));
    const match = `${n.remote.keyPrefix}${accountKeyPattern(account)}`;
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  /**
   * The lock key of `account` on `node` as it is now: its value (the owner's token) and its PTTL in ms; null when
   * the node holds none; undefined when it does not answer (which must never read as "the key is gone"). What
   * reply-loss reads before and right after a dropped reply.
   */
  async ownerKey(
    node: RedisServer,
    account: number,
  ): Promise<{ key: string; value: string; pttlMs: number } | null | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      const [key] = await this.keysOn(node, account);
      if (key === undefined) return null;
      const r = this.conn(node);
      const [value, pttlMs] = await Promise.all([r.get(key), r.pttl(key)]);
      return value === null ? null : { key, value, pttlMs };
    } catch {
      return undefined;
    }
  }

  /**
   * What `key` holds on `node` right now, whatever its type: a string's value, a hash's fields (a reentrant lock's
   * hold counts by owner), or the name of another type; null when there is no key, undefined when the node did not
   * answer. What reply-loss-acquire reads back of a plugin's acquire script.
   */
  async contentOf(node: RedisServer, key: string): Promise<KeyContent | null | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      const r = this.conn(node);
      const type = await r.type(key);
      if (type === 'none') return null;
      if (type === 'string') {
        const value = await r.get(key);
        return value === null ? null : { value };
      }
      return type === 'hash' ? { fields: await r.hgetall(key) } : { type };
    } catch {
      return undefined;
    }
  }

  /** The value under `key` on `node` right now: null when there is none, undefined when the node did not answer. */
  async valueOf(node: RedisServer, key: string): Promise<string | null | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      return await this.conn(node).get(key);
    } catch {
      return undefined;
    }
  }

  /**
   * `key`'s PTTL on `node` as Redis says it: ms left, -1 for a key that never expires, -2 for none; undefined when
   * the node did not answer. What reply-loss-acquire records of the key its dropped SET wrote (how long it orphans).
   */
  async pttlOf(node: RedisServer, key: string): Promise<number | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      return await this.conn(node).pttl(key);
    } catch {
      return undefined;
    }
  }

  /**
   * Sets `key` with a TTL of `pxMs` on `node` and returns its PTTL read right after, with the harness's time
   * (performance.now(), ms) half-way through that read: one sample of the node's expiry clock. Undefined when the node
   * did not answer.
   */
  async setProbe(node: RedisServer, key: string, pxMs: number): Promise<PttlSample | undefined> {
    try {
      await this.conn(node).set(key, 'fencepost clock-rate probe', 'PX', pxMs);
    } catch {
      return undefined;
    }
    return this.pttlSample(node, key);
  }

  /** `key`'s PTTL on `node` and the harness's time half-way through the read; undefined when there is none to read. */
  async pttlSample(node: RedisServer, key: string): Promise<PttlSample | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      const before = performance.now();
      const pttlMs = await this.conn(node).pttl(key);
      const after = performance.now();
      return pttlMs >= 0 ? { pttlMs, atMs: (before + after) / 2, spreadMs: after - before } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The node's own `TIME`, in µs since the epoch; undefined when it did not answer. */
  async timeUs(node: RedisServer): Promise<number | undefined> {
    if (!node.running || node.paused) return undefined;
    try {
      const [s, us] = await this.conn(node).time();
      return Number(s) * 1e6 + Number(us);
    } catch {
      return undefined;
    }
  }

  close(): void {
    for (const r of this.conns.values()) r.disconnect();
    this.conns.clear();
  }
}
