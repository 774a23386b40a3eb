import { randomBytes } from 'node:crypto';
import zookeeper from 'node-zookeeper-client';
import { LockNotAcquired, type LockClient, type LockContext, type LockStrategy, type Lease } from '../strategy.ts';
import { ZkSession, ZkSessionExpired, zkErrorCode } from './zk-session.ts';
import { runTiming } from '../../common/run-timing.ts';

const { CreateMode, Exception } = zookeeper;

/**
 * ZooKeeper lock: the recipe from the ZooKeeper docs. Each contender creates an EPHEMERAL_SEQUENTIAL node under
 * `/fencepost/locks/<key>`; the lowest sequence number holds the lock; every other contender watches only its
 * predecessor (no herd when the holder leaves) and looks again when that node goes.
 *
 * Fencing token = the node's czxid. Holders take turns in sequence order, sequence order is creation order,
 * and zxids are assigned in that same total order by the leader — so each holder's czxid is larger than the
 * previous holder's.
 *
 * The node lives as long as this client's session: a SIGSTOPped client stops heartbeating, the ensemble
 * expires the session after the session timeout (= --ttl, clamped by the server to [2, 20] ticks) and deletes
 * the node, and the next contender holds the lock while the paused one still believes it does.
 */

/** Our own nodes carry a per-client prefix so a create whose reply was lost can find the node it made. */
const SEQUENCE = /-lock-(\d{10})$/;

interface ZkHandle {
  path: string;
}

export function lockDirFor(key: string): string {
  return `/fencepost/locks/${key}`;
}

class ZkLockClient implements LockClient {
  private readonly prefix: string;
  /** Lock dirs known to exist: they are persistent, one mkdirp per key is enough. */
  private readonly dirs = new Set<string>();

  constructor(
    private readonly ctx: LockContext,
    private readonly session: ZkSession,
  ) {
    this.prefix = `c${ctx.client}-${randomBytes(6).toString('hex')}`;
  }

  async acquire(key: string): Promise<Lease> {
    const dir = lockDirFor(key);
    const deadline = performance.now() + this.ctx.acquireTimeoutMs;
    if (!this.dirs.has(dir)) {
      await this.session.mkdirp(dir);
      this.dirs.add(dir);
    }
    const path = await this.createOwnNode(dir);
    const name = path.slice(dir.length + 1);
    let attempts = 0;
    let settled = false;
    try {
      for (;;) {
        attempts++;
        // Both requests at once: ZooKeeper answers a session's requests in order, so the stat (for the token) is
        // read in the same round trip as the children, not one after (bench overhead: 3 round trips → 2).
        const [children, stat] = await Promise.all([this.session.getChildren(dir), this.session.exists(path)]);
        const contenders = children.filter((c) => SEQUENCE.test(c)).sort(bySequence);
        const index = contenders.indexOf(name);
        // Our node can only vanish with our session (or if someone deletes it by hand): not a lock we hold.
        if (index < 0) throw new Error(`our ZooKeeper lock node ${path} disappeared while we waited`);
        if (index === 0) {
          if (!stat) throw new Error(`our ZooKeeper lock node ${path} disappeared`);
          settled = true;
          const token = stat.czxid.readBigUInt64BE(0).toString();
          return {
            key,
            token,
            validityMs: this.session.sessionTimeoutMs,
            attempts,
            handle: { path } satisfies ZkHandle,
          };
        }
        const remaining = deadline - performance.now();
        if (remaining <= 0) break;
        await this.waitForDeletion(`${dir}/${contenders[index - 1]}`, remaining);
        if (performance.now() >= deadline) break;
      }
      // A contender that gives up must take its node away, or it would become a holder nobody knows about
      // when it reaches the head of the queue. If that fails, "not acquired" is not certain: the error says so.
      settled = true;
      await this.session.remove(path);
    } finally {
      // Error paths: best effort; the harness reconnects after an error, and the session's end removes the node.
      if (!settled) await this.session.remove(path).catch(() => false);
    }
    throw new LockNotAcquired(
      `ZooKeeper lock ${dir} still held by another client after ${this.ctx.acquireTimeoutMs} ms`,
      attempts,
    );
  }

  /**
   * create() is not idempotent: if its reply is lost to a connection loss, the node may exist anyway. Our
   * prefix finds it instead of creating a second one (Curator's "protected" mode does the same).
   */
  private async createOwnNode(dir: string): Promise<string> {
    try {
      return await this.session.create(
        `${dir}/${this.prefix}-lock-`,
        Buffer.from(`pid ${process.pid}`),
        CreateMode.EPHEMERAL_SEQUENTIAL,
      );
    } catch (err) {
      if (zkErrorCode(err) !== Exception.CONNECTION_LOSS) throw err;
      const mine = (await this.session.getChildren(dir)).find((c) => c.startsWith(`${this.prefix}-lock-`));
      if (mine) return `${dir}/${mine}`;
      return this.session.create(
        `${dir}/${this.prefix}-lock-`,
        Buffer.from(`pid ${process.pid}`),
        CreateMode.EPHEMERAL_SEQUENTIAL,
      );
    }
  }

  /** Resolves when `path` is deleted (or already gone) or after `timeoutMs`; rejects if the session expires. */
  private async waitForDeletion(path: string, timeoutMs: number): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const stat = await this.session.exists(path, () => wake());
    if (!stat) return;
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe = () => {};
    try {
      await Promise.race([
        woken,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
        new Promise<never>(
          (_, reject) =>
            (unsubscribe = this.session.whenExpired(() => reject(new ZkSessionExpired('waiting for the lock')))),
        ),
      ]);
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  }

  /**
   * ZooKeeper heartbeats on its own; renewing means checking that our node (hence our session) is still there.
   * The check is a write to our own node, not `exists`: reads are answered by whichever server we are connected
   * to, and a follower that lags can still show the node of an expired session — the tests saw a resumed
   * former owner's `exists` say "still yours" after the next owner had the lock. A write goes through the
   * leader, which also refuses it from an expired session.
   */
  async renew(lease: Lease): Promise<boolean> {
    if (this.session.expired) return false;
    try {
      const stat = await this.session.setData(
        (lease.handle as ZkHandle).path,
        Buffer.from(`renewed by pid ${process.pid}`),
      );
      return stat !== null && stat.czxid.readBigUInt64BE(0).toString() === lease.token;
    } catch (err) {
      // Expired while we asked (typical for a client just resumed from a pause): its node is gone for sure.
      if (err instanceof ZkSessionExpired) return false;
      throw err;
    }
  }

  async release(lease: Lease): Promise<boolean> {
    // An expired session's ephemeral nodes were deleted by the ensemble: the lock was no longer ours.
    if (this.session.expired) return false;
    return this.session.remove((lease.handle as ZkHandle).path);
  }

  /** Ends the session: ZooKeeper deletes any node this client still has at once. */
  async close(): Promise<void> {
    await this.session.close();
  }
}

function bySequence(a: string, b: string): number {
  return Number(SEQUENCE.exec(a)![1]) - Number(SEQUENCE.exec(b)![1]);
}

const zk: LockStrategy = {
  name: 'zookeeper',
  needs: ['zk'],
  servers: { zk: 3 },
  token: 'monotonic',
  // The session heartbeats by itself: --watchdog has nothing to add.
  renews: false,
  defaultFaults: ['pause-holder', 'kill', 'pause-node', 'partition'],
  async connect(ctx) {
    return new ZkLockClient(
      ctx,
      await ZkSession.open(ctx.zookeeper, ctx.ttlMs, runTiming(ctx).connectTimeoutMs, ctx.zookeeperAuth),
    );
  },
};

export default zk;
