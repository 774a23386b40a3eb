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
 * One round trip when the lock is free: the create and the first look at the queue (children, with the lock
 * directory's own stat) go out together. ZooKeeper answers one session's requests in order, and a member holds a
 * session's read until that session's earlier writes are applied there, so the children already list our node. The
 * recipe waited for the create before it looked: two round trips (bench overhead, per member, paced: that recipe
 * cost 0.2–1.7 ms over one bare create; this one costs about one create).
 *
 * Fencing token = the lock directory's pzxid (the zxid of the last create or delete among its children) in the read
 * that found us first in line. It grows from each holder to the next, per lock: the next holder is only first once
 * it has seen the previous holder's node gone — its own read is after that delete, whose zxid is larger than any
 * pzxid the previous holder could have read before making it (a release, or its session's expiry). zxids are
 * assigned in one total order by the leader. (The node's czxid grows the same way but needs a third request, a stat
 * of the node, after the create has named it.)
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
    // The create, then the first look queued right behind it on the same session (see the top of the file).
    const created = this.createOwnNode(dir);
    let look = this.session.listChildren(dir);
    look.catch(() => {}); // a failed create throws first; its look is then never awaited
    const path = await created;
    const name = path.slice(dir.length + 1);
    let attempts = 0;
    let settled = false;
    let relooked = false;
    try {
      for (;;) {
        attempts++;
        const { children, stat: dirStat } = await look;
        const contenders = children.filter((c) => SEQUENCE.test(c)).sort(bySequence);
        const index = contenders.indexOf(name);
        if (index < 0 && !relooked) {
          // A create whose reply was lost finds its node with a second request (createOwnNode): the first look went
          // out before that one and cannot show it. Look once more before believing our node is gone.
          relooked = true;
          attempts--;
          look = this.session.listChildren(dir);
          continue;
        }
        // Our node can only vanish with our session (or if someone deletes it by hand): not a lock we hold.
        if (index < 0) throw new Error(`our ZooKeeper lock node ${path} disappeared while we waited`);
        if (index === 0) {
          settled = true;
          const token = dirStat.pzxid.readBigUInt64BE(0).toString();
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
        look = this.session.listChildren(dir);
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
      // Still there, and still this session's node (a node is ephemeral to the session that made it).
      return stat !== null && stat.ephemeralOwner.equals(this.session.client.getSessionId());
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
  // Every request refreshes the session: invoke + the negotiated session timeout (the validityMs it reports).
  lease: { kind: 'reported-from-request' },
  defaultFaults: ['pause-holder', 'kill', 'pause-node', 'partition'],
  async connect(ctx) {
    return new ZkLockClient(
      ctx,
      await ZkSession.open(ctx.zookeeper, ctx.ttlMs, runTiming(ctx).connectTimeoutMs, ctx.zookeeperAuth),
    );
  },
};

export default zk;
