import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LockNotAcquired } from '../strategy.ts';
import etcd, { lockKeyFor } from './etcd.ts';
import { startHolder } from '../../test/support/holder-process.ts';
import { handOver } from '../../test/support/hand-over.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';

const TTL_MS = 2_000;
/** Expiry is checked by etcd's lessor every 500 ms, and the new holder needs a watch event and a txn. */
const EXPIRY_MARGIN_MS = 1_500;

const env = useStrategyCluster(etcd, { etcd: 3 }, { ttlMs: TTL_MS, acquireTimeoutMs: 5_000, seed: 42 });
const { ctx, connect } = env;

describe('etcd strategy', () => {
  it('declares what the harness needs', () => {
    expect(etcd.name).toBe('etcd');
    expect(etcd.needs).toEqual(['etcd']);
    expect(etcd.token).toBe('monotonic');
  });

  it('makes a second client wait until the first releases, then hands it the lock', async () => {
    const [a, b] = [await connect(), await connect()];
    const { first, second: lease, secondDoneEarly, released, wokeAfterMs } = await handOver(a, b, 'contend');
    expect(secondDoneEarly).toBe(false);
    expect(released).toBe(true);
    // Woken by the watch, not by a poll interval or the TTL.
    expect(wokeAfterMs).toBeLessThan(1_000);
    expect(BigInt(lease.token!)).toBeGreaterThan(BigInt(first.token!));
    expect(lease.attempts).toBeGreaterThanOrEqual(2);
    expect(await b.release(lease)).toBe(true);
  });

  it('reports the lease certainly left when the acquire completes, never more than the TTL, however long it waited', async () => {
    const [a, b] = [await connect(), await connect()];
    // b waits 1.5 s for a, while its session lease is kept alive: the promise checker counts the validity from the
    // completion too (the latest the lease can end), so a figure counted from the acquire's start overstated it.
    const { second: lease } = await handOver(a, b, 'validity', 1_500);
    expect(lease.validityMs).toBeGreaterThan(0);
    expect(lease.validityMs).toBeLessThanOrEqual(TTL_MS);
    expect(await b.release(lease)).toBe(true);
  });

  it('gives successive holders strictly increasing tokens, equal to the lock key create revision', async () => {
    const [a, b] = [await connect(), await connect()];
    const direct = env.cluster.etcd[0].client();
    try {
      const tokens: bigint[] = [];
      for (let i = 0; i < 6; i++) {
        const c = i % 2 ? b : a;
        const lease = await c.acquire('tokens');
        const kv = await direct.get(lockKeyFor('tokens')).exec();
        expect(kv.kvs[0].create_revision).toBe(lease.token);
        tokens.push(BigInt(lease.token!));
        // Unrelated writes between holders move the revision too: tokens need only grow, not be dense.
        await direct.put('fencepost/unrelated').value(String(i));
        expect(await c.release(lease)).toBe(true);
      }
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]);
    } finally {
      direct.close();
    }
  });

  it('times out with LockNotAcquired while another client holds the lock', async () => {
    const a = await connect();
    const b = await connect({ acquireTimeoutMs: 700 });
    const held = await a.acquire('timeout');
    const started = performance.now();
    const err = await b.acquire('timeout').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LockNotAcquired);
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(2_500);
    // The holder was never disturbed, and the loser left no lease behind that could later delete the key.
    expect(await a.renew!(held)).toBe(true);
    expect(await a.release(held)).toBe(true);
  });

  it('release of a lock that is no longer ours reports false and leaves the new holder alone', async () => {
    const a = await connect();
    const b = await connect();
    const old = await a.acquire('stale-release');
    await a.release(old);
    const current = await b.acquire('stale-release');
    expect(await a.release(old)).toBe(false);
    expect(await b.renew!(current)).toBe(true);
    expect(await b.release(current)).toBe(true);
  });

  it('a client closed without releasing loses the lock after the TTL; the next holder has a larger token', async () => {
    const a = await etcd.connect(ctx());
    const b = await connect({ acquireTimeoutMs: TTL_MS + 3_000 });
    const first = await a.acquire('closed-holder');
    await a.close();
    const closedAt = performance.now();
    const second = await b.acquire('closed-holder');
    const waited = performance.now() - closedAt;
    expect(BigInt(second.token!)).toBeGreaterThan(BigInt(first.token!));
    // The lease was kept alive up to the close, so expiry comes between ~TTL·2/3 and TTL + the margin.
    expect(waited).toBeGreaterThan(TTL_MS / 3);
    expect(waited).toBeLessThan(TTL_MS + EXPIRY_MARGIN_MS);
    expect(await b.release(second)).toBe(true);
  });

  it('a SIGSTOPped holder process loses the lock after the TTL and, resumed, finds it gone', async () => {
    const holder = await startHolder(fileURLToPath(new URL('./etcd.ts', import.meta.url)), ctx(), 'paused-holder');
    try {
      const b = await connect({ acquireTimeoutMs: TTL_MS + 3_000 });
      holder.pause();
      const pausedAt = performance.now();
      const lease = await b.acquire('paused-holder');
      expect(performance.now() - pausedAt).toBeLessThan(TTL_MS + EXPIRY_MARGIN_MS);
      expect(BigInt(lease.token!)).toBeGreaterThan(BigInt(holder.token!));
      holder.resume();
      // The former owner can learn it lost the lock — if it asks. Writing without asking is the oracle's "lost".
      expect(await holder.request('renew')).toEqual({ result: false });
      expect(await holder.request('release')).toEqual({ result: false });
      expect(await b.renew!(lease)).toBe(true);
      expect(await b.release(lease)).toBe(true);
      // close() stops the keep-alive timers and closes the channels: the process exits on its own.
      expect(await holder.finish()).toBe(0);
    } finally {
      await holder.kill();
    }
  });

  it('keeps one session lease across acquisitions, and takes a fresh one when etcd no longer knows it', async () => {
    const a = await connect();
    const direct = env.cluster.etcd[0].client();
    try {
      const leaseOf = async (key: string) => (await direct.get(lockKeyFor(key)).exec()).kvs[0]?.lease;
      const first = await a.acquire('session');
      const firstLease = await leaseOf('session');
      expect(await a.release(first)).toBe(true);
      const second = await a.acquire('session');
      // One txn per acquire: the key is attached to the same lease, not a newly granted one.
      expect(await leaseOf('session')).toBe(firstLease);
      expect(await a.release(second)).toBe(true);
      // The lease is gone as if it had expired while this client was paused: etcd refuses a put on it.
      await direct.leaseClient.leaseRevoke({ ID: firstLease! });
      const third = await a.acquire('session');
      const thirdLease = await leaseOf('session');
      expect(thirdLease).toBeDefined();
      expect(thirdLease).not.toBe(firstLease);
      expect(await a.release(third)).toBe(true);
    } finally {
      direct.close();
    }
  });
});
