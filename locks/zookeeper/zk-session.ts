import { createHash } from 'node:crypto';
import zookeeper, { type ACL, type Client, type Event, type Stat } from 'node-zookeeper-client';

const { Exception, State } = zookeeper;

/** Anyone may do anything: the library's default, for a session without an identity (a test's observer). */
const OPEN_ACL: ACL[] = [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('world', 'anyone'))];

/** A ZooKeeper digest identity (the run's, from LockContext.zookeeperAuth). */
export interface ZkAuth {
  username: string;
  password: string;
}

/**
 * The ACL that gives `auth` every permission and no one else any: ZooKeeper's digest scheme names an identity by
 * `user:base64(sha1(user:password))`. On a lock parent it keeps others from creating or deleting children (a
 * node ahead of the waiters, or the holder's node gone); on a lock node, from reading or changing it.
 */
export function zkDigestAcl(auth: ZkAuth): ACL[] {
  const digest = createHash('sha1').update(`${auth.username}:${auth.password}`).digest('base64');
  return [new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('digest', `${auth.username}:${digest}`))];
}

/** The session is gone: ZooKeeper deleted its ephemeral nodes. Nothing more can be done with this client. */
export class ZkSessionExpired extends Error {
  constructor(what: string) {
    super(`ZooKeeper session expired (${what}); its ephemeral nodes are gone — reconnect with a new session`);
    this.name = 'ZkSessionExpired';
  }
}

/** A call did not complete within its deadline: its effect is unknown. */
export class ZkCallTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`ZooKeeper ${what} got no reply within ${ms} ms (server paused or unreachable?)`);
    this.name = 'ZkCallTimeout';
  }
}

export function zkErrorCode(err: unknown): number | undefined {
  return err instanceof Exception ? err.getCode() : undefined;
}

type Callback<T> = (error: Error | InstanceType<typeof Exception> | null, value: T) => void;

/**
 * One ZooKeeper session of node-zookeeper-client, with promise calls that cannot hang.
 *
 * Why each call has a deadline: the library has no read timeout. Requests queued while it is disconnected, or
 * sent to a SIGSTOPped server, wait forever, and requests queued when the session expires are never called
 * back. Here every call fails with ZkCallTimeout after the deadline, and every call in flight fails with
 * ZkSessionExpired as soon as the client sees the `expired` state.
 */
export class ZkSession {
  private expiredFlag = false;
  private readonly onExpired = new Set<() => void>();

  private constructor(
    readonly client: Client,
    /** Deadline of one call: the negotiated session timeout — past it, the session's fate is decided anyway. */
    readonly callTimeoutMs: number,
    /** The ACL of every node this session creates: the run's digest identity only, or open without one. */
    private readonly acl: ACL[],
  ) {
    client.on('state', (state) => {
      if (state !== State.EXPIRED) return;
      this.expiredFlag = true;
      for (const f of [...this.onExpired]) f();
    });
  }

  /**
   * Connects and waits for a session; the session timeout the server granted becomes the call deadline. With
   * `auth`, the session authenticates as that digest identity (the library sends it again on every reconnect) and
   * every node it creates carries zkDigestAcl(auth).
   */
  static async open(
    connectString: string,
    sessionTimeoutMs: number,
    connectTimeoutMs: number,
    auth?: ZkAuth,
  ): Promise<ZkSession> {
    // spinDelay: pause between rounds over all servers; the default 1 s is long next to a 2 s session.
    const client = zookeeper.createClient(connectString, {
      sessionTimeout: sessionTimeoutMs,
      spinDelay: 100,
      retries: 0,
    });
    if (auth) client.addAuthInfo('digest', Buffer.from(`${auth.username}:${auth.password}`));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.close();
        reject(new Error(`ZooKeeper ${connectString}: no session after ${connectTimeoutMs} ms (is a quorum up?)`));
      }, connectTimeoutMs);
      client.once('connected', () => {
        clearTimeout(timer);
        resolve();
      });
      client.connect();
    });
    return new ZkSession(client, client.getSessionTimeout(), auth ? zkDigestAcl(auth) : OPEN_ACL);
  }

  get expired(): boolean {
    return this.expiredFlag;
  }

  /** The server's session timeout (clamped to its [min, max]): how long an unreachable client keeps its nodes. */
  get sessionTimeoutMs(): number {
    return this.client.getSessionTimeout();
  }

  /** Calls `f` once when the session expires (at once if it already has); returns the unsubscribe. */
  whenExpired(f: () => void): () => void {
    if (this.expiredFlag) {
      f();
      return () => {};
    }
    this.onExpired.add(f);
    return () => this.onExpired.delete(f);
  }

  /**
   * Runs one library call with the deadline and expiry rules above. `retryOnConnectionLoss` is for idempotent
   * calls only: after CONNECTION_LOSS the request may or may not have been applied, and the client is
   * reconnecting (to the same session, if it is still alive) — a read can just ask again.
   */
  async call<T>(what: string, f: (cb: Callback<T>) => void, retryOnConnectionLoss = false): Promise<T> {
    const deadline = performance.now() + this.callTimeoutMs;
    for (;;) {
      if (this.expiredFlag) throw new ZkSessionExpired(what);
      try {
        return await this.once(what, f, deadline);
      } catch (err) {
        const code = zkErrorCode(err);
        if (code === Exception.SESSION_EXPIRED) throw new ZkSessionExpired(what);
        if (code !== Exception.CONNECTION_LOSS || !retryOnConnectionLoss || performance.now() >= deadline) throw err;
        // Give the client a moment to reconnect rather than spinning on the dead connection.
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  private async once<T>(what: string, f: (cb: Callback<T>) => void, deadline: number): Promise<T> {
    await this.connected(what, deadline);
    return new Promise<T>((resolve, reject) => {
      const ms = Math.max(0, deadline - performance.now());
      const timer = setTimeout(() => settle(new ZkCallTimeout(what, this.callTimeoutMs)), ms);
      const unsubscribe = this.whenExpired(() => settle(new ZkSessionExpired(what)));
      let done = false;
      function settle(err: unknown, value?: T) {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unsubscribe();
        if (err) reject(err);
        else resolve(value as T);
      }
      f((err, value) => settle(err, value));
    });
  }

  /**
   * Resolves once the client is connected. Why a call waits for it: on a reconnect the library queues the auth packet
   * (addAuthInfo) behind every request queued while it was disconnected, so such a request reaches the server
   * unauthenticated and a node under the run's ACL answers NO_AUTH. reply-loss-create saw it: after a create's reply
   * was lost, the recipe's look for its node (createOwnNode) failed so in every shot (36 of 36) instead of finding it.
   */
  private connected(what: string, deadline: number): Promise<void> {
    if (this.client.getState() === State.SYNC_CONNECTED) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      // Assigned before anything can settle: no event fires synchronously, and whenExpired is last.
      let unsubscribe = () => {};
      const settle = (err?: Error) => {
        clearTimeout(timer);
        unsubscribe();
        this.client.removeListener('connected', onConnected);
        if (err) reject(err);
        else resolve();
      };
      const onConnected = () => settle();
      this.client.once('connected', onConnected);
      const timer = setTimeout(
        () => settle(new ZkCallTimeout(`${what} (not connected)`, this.callTimeoutMs)),
        Math.max(0, deadline - performance.now()),
      );
      unsubscribe = this.whenExpired(() => settle(new ZkSessionExpired(what)));
    });
  }

  mkdirp(path: string): Promise<string> {
    return this.call(`mkdirp ${path}`, (cb) => this.client.mkdirp(path, this.acl, cb), true);
  }

  create(path: string, data: Buffer, mode: number): Promise<string> {
    return this.call(`create ${path}`, (cb) => this.client.create(path, data, this.acl, mode, cb));
  }

  getChildren(path: string): Promise<string[]> {
    return this.call(`getChildren ${path}`, (cb) => this.client.getChildren(path, cb), true);
  }

  /** The children of `path` and its own stat (GET_CHILDREN2: one request), as of when the server answers. */
  listChildren(path: string): Promise<{ children: string[]; stat: Stat }> {
    return this.call(
      `getChildren ${path}`,
      (cb) => this.client.getChildren(path, (err, children, stat) => cb(err, { children, stat })),
      true,
    );
  }

  /** The node's stat, or null if it does not exist; `watcher` fires once when it is deleted or changed. */
  exists(path: string, watcher?: (event: Event) => void): Promise<Stat | null> {
    return this.call<Stat | null>(
      `exists ${path}`,
      (cb) => (watcher ? this.client.exists(path, watcher, cb) : this.client.exists(path, cb)),
      true,
    );
  }

  /**
   * Writes `data` to an existing node and returns its new stat, or null if the node does not exist. Unlike a
   * read, a write is ordered by the leader: its answer is linearizable. An unconditional overwrite (version -1)
   * is idempotent, so it is retried after a connection loss like a read.
   */
  async setData(path: string, data: Buffer): Promise<Stat | null> {
    try {
      return await this.call<Stat>(`setData ${path}`, (cb) => this.client.setData(path, data, -1, cb), true);
    } catch (err) {
      if (zkErrorCode(err) === Exception.NO_NODE) return null;
      throw err;
    }
  }

  /** Resolves true if this call deleted the node, false if it did not exist. Not retried: see `call`. */
  async remove(path: string): Promise<boolean> {
    try {
      await this.call<void>(`remove ${path}`, (cb) => this.client.remove(path, -1, (err) => cb(err, undefined)));
      return true;
    } catch (err) {
      if (zkErrorCode(err) === Exception.NO_NODE) return false;
      throw err;
    }
  }

  /** Ends the session (ZooKeeper deletes its ephemeral nodes at once) and waits briefly for the socket to close. */
  async close(): Promise<void> {
    if (this.expiredFlag) {
      this.client.close();
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1_000);
      this.client.once('disconnected', () => {
        clearTimeout(timer);
        resolve();
      });
      this.client.close();
    });
  }
}
