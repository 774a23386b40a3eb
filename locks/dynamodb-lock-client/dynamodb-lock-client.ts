import { npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';

/**
 * `dynamodb-lock-client@0.7.3` (aws-sdk 2.1693.0's DocumentClient, its peer) as its README's usage example runs its
 * "fail open" client: `new DynamoDBLockClient.FailOpen({ dynamodb, lockTable, partitionKey, heartbeatPeriodMs: 3e3,
 * leaseDurationMs: 1e4 })`, `acquireLock(id, (error, lock) => …)`, `lock.on("error", …)`, the work,
 * `lock.release(…)`. The lease is the run's TTL and the heartbeat keeps the README's ratio (3 s of 10 s: 0.3 × TTL);
 * `retryCount` (1) and `trustLocalTime` (false) are its defaults, which the README's example leaves alone.
 *
 * Why FailOpen, when the README's example shows FailClosed first: FailClosed never expires ("requires human
 * intervention" after a crash) and has no token and no heartbeat — the run's first killed or paused holder would keep
 * every other client out for good. FailOpen is the one with the three things the row is there to measure: its
 * heartbeats, its fencing token and `trustLocalTime`. FailClosed is not measured.
 *
 * What the library does (index.js, pinned by locks/dynamodb-lock-client/npm):
 * - acquire: a consistent GET of the record. None: a PUT `attribute_not_exists(id)` with fencingToken 1. One:
 *   fencingToken + 1, then it waits the record's own `leaseDurationMs` (on a timer: with `trustLocalTime` false no
 *   clock is read) and PUTs on condition that the record's `guid` and `fencingToken` are still the ones it read. A
 *   failed condition tries once more from the GET (`retryCount` 1), then `FailedToAcquireLock` — definitely not held.
 * - heartbeat: every heartbeatPeriodMs a PUT with a new random `guid` on condition the guid is its own. A waiter that
 *   saw the old guid then fails its condition: the lease is "no heartbeat for leaseDurationMs as the waiter's timer
 *   measures it". A failed heartbeat emits `error` on the lock and stops the heartbeats; the holder is not told
 *   otherwise (README's example only logs), so this row has no `stillHeld`.
 * - release: heartbeats stop, then a PUT with `leaseDurationMs: 1` on condition the guid is its own; the record stays
 *   ("continuity of fencingToken monotonicity"). A failed condition is swallowed (`callback()`): release never says
 *   the lock was already someone else's, so `release` here says true.
 * - token: `lock.fencingToken`, read + 1 on every acquisition, kept by heartbeats: grows with every holder.
 *
 * dynalite (the run's DynamoDB) runs every request the client sends: GetItem with ConsistentRead, PutItem with
 * `attribute_not_exists(#partitionKey) or (guid = :guid and fencingToken = :fencingToken)` and
 * `attribute_exists(#partitionKey) and guid = :guid` (checked by the servers test beside this file).
 */
interface Lock {
  readonly fencingToken?: number;
  heartbeatTimeout?: ReturnType<typeof setTimeout>;
  _released: boolean;
  on(event: 'error', listener: (err: Error) => void): void;
  release(callback: (err?: Error) => void): void;
}
interface FailOpenClient {
  acquireLock(id: string, callback: (err: (Error & { code?: string }) | undefined, lock?: Lock) => void): void;
}
interface DynamoDBLockClientModule {
  FailOpen: new (config: Record<string, unknown>) => FailOpenClient;
}
interface AwsSdk {
  DynamoDB: { DocumentClient: new (options: Record<string, unknown>) => unknown };
}

/** README's 3e3 heartbeat for a 1e4 lease. */
export const HEARTBEAT_SHARE_OF_LEASE = 0.3;

class DynamoDbLockClient implements LockClient {
  /** Locks this process holds: `close()` stops their heartbeats (the process goes on as a new id). */
  private readonly held = new Set<Lock>();

  constructor(
    private readonly client: FailOpenClient,
    private readonly row: string,
    private readonly ctx: LockContext,
  ) {}

  /**
   * The library has no acquire timeout: a waiter waits a whole lease before each of its two tries (2 × TTL), which
   * fits a run's budget (3 × TTL + 1 s) but not every caller's. Past `acquireTimeoutMs` this says "unknown" (an
   * Error, not LockNotAcquired: its workflow is still going and may yet take the lock), as redis-lock's row does; a
   * lock it takes after that is released at once, since nobody holds it — its heartbeats would keep it forever.
   */
  acquire(key: string): Promise<Lease> {
    return new Promise((resolve, reject) => {
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(
          new Error(
            `${this.row} has no acquire timeout: still waiting out a lease after ${this.ctx.acquireTimeoutMs} ms (it may take the lock later)`,
          ),
        );
      }, this.ctx.acquireTimeoutMs);
      this.client.acquireLock(`fencepost:${this.row}:${key}`, (err, lock) => {
        clearTimeout(timer);
        if (gaveUp) {
          lock?.release(() => {});
          return;
        }
        if (err || !lock) {
          if (err?.code === 'FailedToAcquireLock') reject(new LockNotAcquired(`${this.row}: ${err.message}`, 2));
          else reject(err ?? new Error(`${this.row}: acquireLock returned no lock`));
          return;
        }
        // README: `lock.on("error", error => console.error("failed to heartbeat!"))` — without a listener the
        // EventEmitter's 'error' would end the process.
        lock.on('error', (e) => console.error(`${this.row}: failed to heartbeat! (${e.message})`));
        this.held.add(lock);
        resolve({ key, token: String(lock.fencingToken), attempts: 1, handle: lock });
      });
    });
  }

  release(lease: Lease): Promise<boolean> {
    const lock = lease.handle as Lock;
    this.held.delete(lock);
    return new Promise((resolve, reject) => lock.release((err) => (err ? reject(err) : resolve(true))));
  }

  async close(): Promise<void> {
    // As if the process had died: no release, the heartbeats stop (their timer and the flag the library checks).
    for (const lock of this.held) {
      lock._released = true;
      clearTimeout(lock.heartbeatTimeout);
    }
    this.held.clear();
  }
}

/**
 * The row's strategy, and its `trustLocalTime: true` variant's (locks/dynamodb-lock-client-local-time): the one option
 * between them. With it a waiter waits only what is left of the lease by its own wall clock against the stamp the
 * holder's clock wrote (`lockAcquiredTimeUnixMs`), so the lease is the clients' clocks agreeing.
 */
export function dynamodbLockClientStrategy(name: string, trustLocalTime: boolean): LockStrategy {
  return {
    name,
    needs: [],
    dynamodb: true,
    token: 'monotonic',
    // It heartbeats by itself: --watchdog does not apply.
    renews: false,
    // A waiter steals only after a TTL without heartbeats on its own timer (or, trusting local time, by its wall clock
    // against the holder's stamp), from a read after the holder's PUT, which came after the holder's request: invoke +
    // TTL is the shortest the lease lasts while the clocks agree (docs/checkers.md#the-locks-promise).
    lease: { kind: 'ttl-from-request' },
    defaultFaults: trustLocalTime ? ['clock-strobe', 'pause-holder'] : ['pause-holder', 'kill-holder'],
    async connect(ctx: LockContext) {
      const d = ctx.dynamodb;
      if (!d) throw new Error(`${name}: the run has no DynamoDB (LockStrategy.dynamodb)`);
      const require = npmLockRequire('dynamodb-lock-client');
      const AWS = require('aws-sdk') as AwsSdk;
      const lib = require('dynamodb-lock-client') as DynamoDBLockClientModule;
      const { endpoint, region, accessKeyId, secretAccessKey } = d;
      const dynamodb = new AWS.DynamoDB.DocumentClient({ endpoint, region, accessKeyId, secretAccessKey });
      const client = new lib.FailOpen({
        dynamodb,
        lockTable: d.table,
        partitionKey: d.partitionKey,
        heartbeatPeriodMs: Math.round(HEARTBEAT_SHARE_OF_LEASE * ctx.ttlMs),
        leaseDurationMs: ctx.ttlMs,
        ...(trustLocalTime ? { trustLocalTime: true } : {}),
      });
      return new DynamoDbLockClient(client, name, ctx);
    },
  };
}

export default dynamodbLockClientStrategy('dynamodb-lock-client', false);
