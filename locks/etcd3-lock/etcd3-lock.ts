import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3, EtcdLockFailedError, type Lock } from 'etcd3';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';

/**
 * The `etcd3` package's own lock, `client.lock(key)` (etcd3@1.1.2, already fencepost's dependency — the `etcd` row
 * is a recipe of ours that deliberately avoids this class, locks/etcd/etcd.ts says why). As its doc comment
 * uses it (the README has no lock section; lib/lock.js): `const lock = client.lock(key).ttl(seconds)`,
 * `await lock.acquire()`, the work, `await lock.release()`, over `new Etcd3({ hosts, auth })` with its defaults.
 *
 * What it does: `acquire()` grants a new lease (TTL in whole seconds, ≥ 1; its default is 30 s, here the run's TTL
 * rounded up), then one txn `if key.create == 0: put key with the lease`; when the key exists it revokes the lease and
 * throws `EtcdLockFailedError` at once — one attempt, no waiting. So the waiting loop is necessarily the user's: here
 * a fixed 100 ms between attempts, until the harness's acquire budget. The lease is kept alive every TTL/3 by the
 * library (so long work is safe), and when it is lost the lease emits `lost` — on a *private* lease: a Lock user cannot
 * learn that the lock is gone (no `stillHeld` is possible). `release()` revokes the lease; a lease etcd no longer
 * knows is swallowed, so release never says the lock was no longer ours.
 *
 * Token: the key's create revision — etcd's revision only grows and every holder creates the key anew. `acquire()`
 * does not return it, so one `get` after acquiring reads it, checking the key is on our lease (as the python-etcd3 row
 * does). The role the run gives the clients may touch keys under `fencepost/` only.
 */
const RETRY_DELAY_MS = 100;

export function lockKeyFor(key: string): string {
  return `fencepost/etcd3-lock/${key}`;
}

class Etcd3LockClient implements LockClient {
  private readonly ttlSeconds: number;
  /** Locks this process holds: `close()` stops their leases' keep-alives (the process goes on as a new id). */
  private readonly held = new Set<Lock>();

  constructor(
    private readonly ctx: LockContext,
    private readonly client: Etcd3,
  ) {
    this.ttlSeconds = Math.max(1, Math.ceil(ctx.ttlMs / 1000));
  }

  async acquire(key: string): Promise<Lease> {
    const lockKey = lockKeyFor(key);
    const deadline = performance.now() + this.ctx.acquireTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      const lock = this.client.lock(lockKey).ttl(this.ttlSeconds);
      try {
        await lock.acquire();
      } catch (err) {
        if (!(err instanceof EtcdLockFailedError)) throw err;
        if (performance.now() + RETRY_DELAY_MS >= deadline)
          throw new LockNotAcquired(`etcd3-lock: ${err.message} (${attempts} attempts)`, attempts);
        await sleep(RETRY_DELAY_MS);
        continue;
      }
      this.held.add(lock);
      return { key, token: await this.tokenOf(lock, lockKey), attempts, handle: lock };
    }
  }

  /** The key's create revision, once we know the key is on our lease (else the lock was lost already: unknown). */
  private async tokenOf(lock: Lock, lockKey: string): Promise<string> {
    const [leaseId, res] = await Promise.all([lock.leaseId(), this.client.get(lockKey).exec()]);
    const kv = res.kvs[0];
    if (!kv || kv.lease !== leaseId)
      throw new Error(
        `etcd3-lock: ${lockKey} is not on our lease ${leaseId} right after acquire (found ${kv?.lease ?? 'no key'})`,
      );
    return kv.create_revision;
  }

  async release(lease: Lease): Promise<boolean> {
    const lock = lease.handle as Lock;
    this.held.delete(lock);
    await lock.release();
    return true;
  }

  async close(): Promise<void> {
    // The keep-alive timers of a lock still held would keep it (and this process) alive: stop them without
    // revoking, as if the process had died (its lease then expires after the TTL). `lease` is private in the typings.
    for (const lock of this.held) (lock as unknown as { lease?: { release(): void } }).lease?.release();
    this.held.clear();
    this.client.close();
  }
}

const etcd3Lock: LockStrategy = {
  name: 'etcd3-lock',
  needs: ['etcd'],
  servers: { etcd: 3 },
  token: 'monotonic',
  // The library keeps the lease alive itself: --watchdog does not apply.
  renews: false,
  // acquire() grants a fresh lease (whole seconds, ≥ --ttl) after the request: invoke + TTL, whatever its keep-alives add.
  lease: { kind: 'ttl-from-request' },
  defaultFaults: ['pause-holder', 'kill', 'pause-node', 'partition'],
  async connect(ctx) {
    const client = new Etcd3({ hosts: ctx.etcd, ...(ctx.etcdAuth ? { auth: ctx.etcdAuth } : {}) });
    return new Etcd3LockClient(ctx, client);
  },
};
export default etcd3Lock;
