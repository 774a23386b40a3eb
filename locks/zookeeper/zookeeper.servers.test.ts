import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockNotAcquired, type Lease } from '../strategy.ts';
import { startHolder } from '../../test/support/holder-process.ts';
import { ZkSession } from './zk-session.ts';
import zookeeper, { lockDirFor } from './zookeeper.ts';
import { handOver } from '../../test/support/hand-over.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import { eventually } from '../../test/support/eventually.ts';

const TTL_MS = 2_000;
/** The leader checks session expiry every tick (250 ms); the next contender then needs a watch event and a read. */
const EXPIRY_MARGIN_MS = 1_500;

let direct: ZkSession;
const env = useStrategyCluster(zookeeper, { zk: 3 }, { ttlMs: TTL_MS, acquireTimeoutMs: 5_000, seed: 7 });
const { ctx, connect } = env;

/**
 * ZooKeeper reads are not linearizable across sessions: our observer may sit on a follower that has not yet
 * applied what a lock client just did through another server. A write of the observer's own goes through the
 * leader and is answered only once its server has applied everything before it — a sync barrier.
 */
async function barrier(): Promise<void> {
  await direct.call('setData /fencepost', (cb) => direct.client.setData('/fencepost', Buffer.from('barrier'), -1, cb));
}

async function czxid(path: string): Promise<string | undefined> {
  await barrier();
  return (await direct.exists(path))?.czxid.readBigUInt64BE(0).toString();
}

async function children(dir: string): Promise<string[]> {
  await barrier();
  return direct.getChildren(dir);
}

beforeAll(async () => {
  direct = await ZkSession.open(ctx().zookeeper, 5_000, 10_000, ctx().zookeeperAuth);
});

afterAll(async () => {
  await direct?.close();
});

/** `n` znodes (the holder's and its waiters') in the lock's directory: each waiter has arrived. */
async function queued(key: string, n: number): Promise<void> {
  await eventually(`${n} znodes under ${key}`, async () => (await children(lockDirFor(key))).length >= n, 10_000);
}

describe('zookeeper strategy', () => {
  it('declares what the harness needs', () => {
    expect(zookeeper.name).toBe('zookeeper');
    expect(zookeeper.needs).toEqual(['zk']);
    expect(zookeeper.token).toBe('monotonic');
  });

  it('makes a second client wait until the first releases, then hands it the lock', async () => {
    const [a, b] = [await connect(), await connect()];
    const { first, second: lease, secondDoneEarly, released, wokeAfterMs } = await handOver(a, b, 'contend');
    expect(secondDoneEarly).toBe(false);
    expect(released).toBe(true);
    expect(wokeAfterMs).toBeLessThan(1_000); // woken by the watch
    expect(BigInt(lease.token!)).toBeGreaterThan(BigInt(first.token!));
    expect(await b.release(lease)).toBe(true);
  });

  /** How long c is given to (wrongly) take the lock after a's release. */
  const NOT_WOKEN_WITHIN_MS = 300;
  it('hands the lock on in arrival order: each waiter watches only its predecessor', async () => {
    const [a, b, c] = [await connect(), await connect(), await connect()];
    const order: string[] = [];
    const la = await a.acquire('fifo');
    // Each waiter's znode is awaited before the next arrives (a fixed 200 ms was too short under the servers tier's
    // load: the third znode was not there yet): arrival order is then b before c.
    const pb = b.acquire('fifo').then((l) => (order.push('b'), l));
    await queued('fifo', 2);
    const pc = c.acquire('fifo').then((l) => (order.push('c'), l));
    await queued('fifo', 3);
    expect((await children(lockDirFor('fifo'))).length).toBe(3);
    await a.release(la);
    const lb = await pb;
    // An absence, so a time: had a's release woken c too, c would have taken the free lock within this.
    await new Promise((r) => setTimeout(r, NOT_WOKEN_WITHIN_MS));
    expect(order).toEqual(['b']); // c was not woken by a's release
    await b.release(lb);
    const lc = await pc;
    expect(order).toEqual(['b', 'c']);
    await c.release(lc);
  });

  it("gives successive holders strictly increasing tokens: the lock directory's pzxid when each found itself first", async () => {
    const [a, b] = [await connect(), await connect()];
    const tokens: bigint[] = [];
    for (let i = 0; i < 6; i++) {
      const c = i % 2 ? b : a;
      const lease = await c.acquire('tokens');
      // Read after our own create: at least its zxid, and with nobody else in the directory exactly the last change.
      const own = BigInt((await czxid((lease.handle as { path: string }).path))!);
      expect(BigInt(lease.token!)).toBe(own);
      tokens.push(BigInt(lease.token!));
      expect(await c.release(lease)).toBe(true);
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]);
  });

  it("gives a waiter that becomes holder a token above its predecessor's and above its own node's czxid", async () => {
    const [a, b] = [await connect(), await connect()];
    const la = await a.acquire('waiter-token');
    const pb = b.acquire('waiter-token');
    await queued('waiter-token', 2);
    await a.release(la);
    const lb = await pb;
    // b's node was made while a held the lock; b's token is read after a's delete, so above both.
    const own = BigInt((await czxid((lb.handle as { path: string }).path))!);
    expect(BigInt(lb.token!)).toBeGreaterThan(own);
    expect(BigInt(lb.token!)).toBeGreaterThan(BigInt(la.token!));
    expect(await b.release(lb)).toBe(true);
  });

  it('times out with LockNotAcquired while another client holds the lock, and takes its node away', async () => {
    const a = await connect();
    const b = await connect({ acquireTimeoutMs: 700 });
    const held = await a.acquire('timeout');
    const started = performance.now();
    const err = await b.acquire('timeout').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LockNotAcquired);
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(2_500);
    expect(await children(lockDirFor('timeout'))).toHaveLength(1);
    expect(await a.renew!(held)).toBe(true);
    expect(await a.release(held)).toBe(true);
    expect(await a.release(held)).toBe(false);
  });

  it('a client closed without releasing ends its session: the lock passes on at once, with a larger token', async () => {
    const a = await zookeeper.connect(ctx());
    const b = await connect();
    const first = await a.acquire('closed-holder');
    const second = b.acquire('closed-holder');
    await queued('closed-holder', 2);
    const closedAt = performance.now();
    await a.close();
    const lease = await second;
    // close() is a graceful session end, not a crash: no session timeout to wait for.
    expect(performance.now() - closedAt).toBeLessThan(1_000);
    expect(BigInt(lease.token!)).toBeGreaterThan(BigInt(first.token!));
    await b.release(lease);
  });

  it('a SIGSTOPped holder loses the lock when its session expires; resumed, its session fails fast', async () => {
    const holder = await startHolder(fileURLToPath(new URL('./zookeeper.ts', import.meta.url)), ctx(), 'paused-holder');
    let lease: Lease | undefined;
    const b = await connect({ acquireTimeoutMs: TTL_MS + 3_000 });
    try {
      holder.pause();
      const pausedAt = performance.now();
      lease = await b.acquire('paused-holder');
      expect(performance.now() - pausedAt).toBeGreaterThan(TTL_MS / 2);
      expect(performance.now() - pausedAt).toBeLessThan(TTL_MS + EXPIRY_MARGIN_MS);
      expect(BigInt(lease.token!)).toBeGreaterThan(BigInt(holder.token!));
      holder.resume();
      // The former owner learns it lost the lock if it asks; writing without asking is the oracle's "lost".
      expect(await holder.request('renew')).toEqual({ result: false });
      expect(await holder.request('release')).toEqual({ result: false });
      // Its session is gone for good: further calls fail at once instead of waiting forever.
      const startedAt = performance.now();
      const again = await holder.request('acquire');
      expect(again.error).toMatch(/ZkSessionExpired/);
      expect(performance.now() - startedAt).toBeLessThan(1_000);
      expect(await b.renew!(lease)).toBe(true);
      // close() leaves nothing running: the process exits on its own.
      expect(await holder.finish()).toBe(0);
    } finally {
      await holder.kill();
      if (lease) await b.release(lease);
    }
  });
});
