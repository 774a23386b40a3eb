/**
 * A lock strategy, as the bank workload's clients use it. A built-in is `<name>/<name>.ts` in its folder here; a user's
 * own strategy is a module whose default export is a `LockStrategy` (see docs/your-lock.md).
 *
 * Lifecycle, per client OS process: `connect(ctx)` once (and again after an `info`, with fresh connections),
 * then any number of `acquire` → (`renew`)* → `release`, then `close`.
 */

/** Where a client reaches one server: an address, and what the connection needs beyond it. */
export interface Endpoint {
  host: string;
  port: number;
  /**
   * The run's Redis password (`AUTH`), when the server wants one; spread the endpoint into ioredis's options
   * and it is used. It reaches the client over the harness's IPC channel, never argv: don't log it.
   */
  password?: string;
  /** The ACL user, on a target whose Redis has one (`--target`); absent = the default user. Spread like the rest. */
  username?: string;
  /** TLS towards a target's Redis (its CA, the name in its certificate), in ioredis's `tls` option's shape. */
  tls?: { ca?: string; servername?: string };
  /**
   * With `--target`: the prefix every key of the run must begin with, as ioredis's `keyPrefix` option (so spreading
   * the endpoint applies it to every command's keys, scripts' KEYS included). The target's server enforces it: a key
   * outside it is refused (NOPERM).
   */
  keyPrefix?: string;
  /**
   * With `--target`: `false`, as ioredis's option of that name. Its ready check asks INFO, which a fenced ACL refuses
   * (`-@dangerous`), and ioredis then warns on every connection; fencepost checked the server answers already.
   */
  enableReadyCheck?: boolean;
}

import type { FaultName } from '../faults/fault-names.ts';
import type { LeaseTerms } from '../history/lease-terms.ts';
import type { DynamoEndpoint } from '../cluster/servers/dynamo-endpoint.ts';

export type { DynamoEndpoint } from '../cluster/servers/dynamo-endpoint.ts';

export type { LeaseTerms } from '../history/lease-terms.ts';

/**
 * What a client gets to connect with. Every address is 127.0.0.1 (often a fault proxy of the harness), or with
 * `--target` one of the hosts the target file allows.
 */
export interface LockContext {
  /** The independent Redis masters, as many as the strategy's `servers.redis` (5 by default; redis uses 1). */
  redis: Endpoint[];
  /** etcd client URLs, e.g. http://127.0.0.1:2379. */
  etcd: string[];
  /**
   * The run's etcd user (auth is on): pass it as etcd3's `auth` option. Its role may read and write keys under
   * `fencepost/` and nothing else. Over IPC like the Redis password: don't log it.
   */
  etcdAuth?: { username: string; password: string };
  /**
   * With `--target` (the user's own servers): every key the lock creates must begin with this prefix — the run's own
   * namespace under the target's prefix (`fp-ci/run-…/`), recorded before the clients start. The Redis endpoints carry
   * it already (`keyPrefix`); an etcd lock puts it in front of its keys itself. The run removes every key under it at
   * the end, and `cleanup --target` after a kill -9.
   */
  keyPrefix?: string;
  /** TLS towards a target's etcd members (their CA, the name in their certificates); absent = plain http. */
  etcdTls?: { ca?: string; servername?: string };
  /** ZooKeeper connect string: host:port,host:port,… */
  zookeeper: string;
  /**
   * The run's ZooKeeper digest identity: `addAuthInfo('digest', 'username:password')` on every session, and
   * create every node with the ACL of that identity (zkDigestAcl in locks/zookeeper/zk-session.ts), so that
   * no one else can read, change or delete it.
   */
  zookeeperAuth?: { username: string; password: string };
  /**
   * The run's Postgres (the resource's server and role), for a lock that lives in Postgres (advisory locks): a
   * connection string as node-postgres and its users write it. Over IPC like the passwords above: don't log it.
   */
  postgresUrl?: string;
  /**
   * The run's pgbouncer in front of that Postgres (same role, database and session name), for a strategy that declares
   * `pgbouncer`: a connection string like `postgresUrl`, whose statements run on whichever backend the pool hands out.
   */
  pgbouncerUrl?: string;
  /** The run's DynamoDB (dynalite), for a strategy that declares `dynamodb`. Over IPC like the passwords: don't log it. */
  dynamodb?: DynamoEndpoint;
  /** Lock TTL / lease / session timeout in ms (--ttl). */
  ttlMs: number;
  /** How long one `acquire` may keep retrying before it gives up with LockNotAcquired. */
  acquireTimeoutMs: number;
  /** Client slot (0-based) — stable across the process ids the slot goes through. */
  client: number;
  /** A per-client seed for retry jitter, derived from --seed. */
  seed: number;
  /**
   * `--retry`: who retries a refused acquire. `library` (also when absent): the lock library's own retry loop, with
   * its documented defaults — the lock as its users run it. `harness`: one library attempt per try and the strategy's
   * own loop around it (until acquireTimeoutMs), the workaround for a library whose loop livelocks; only passed to
   * a strategy that declares `harnessRetry: true`.
   */
  retry?: 'library' | 'harness';
}

/** A held lock. `token` is the fencing token when the strategy has one: a decimal string, compare as BigInt. */
export interface Lease {
  key: string;
  token?: string;
  /** How long the lock is believed valid, from the moment acquire returned (Redlock's validity time). */
  validityMs?: number;
  /** How many tries this acquire took (1 = the first one got the lock). */
  attempts: number;
  /** Strategy-private state (the owner value, the ZooKeeper node path, the etcd lease…). */
  handle?: unknown;
  /**
   * What the lock's server said about this grant, recorded in the acquire's `ok` (optional): the Postgres backend
   * that ran the lock call (`pg_backend_pid()` in the same statement), so that a double grant names its proof.
   */
  evidence?: Readonly<Record<string, string | number>>;
}

/**
 * The brand that marks an error as "the lock was definitely not obtained". A well-known `Symbol.for` key, not the
 * class's identity: a plugin resolves `fencepost` from its own folder, which may be another copy of this module
 * (a second install, a bundled build, a CommonJS twin), and an `instanceof` against the harness's copy would call
 * that plugin's every refusal "unknown". Any error carrying `[LOCK_NOT_ACQUIRED] === true` counts.
 */
export const LOCK_NOT_ACQUIRED: unique symbol = Symbol.for('fencepost.LockNotAcquired');

/**
 * Thrown by `acquire` when the lock was definitely not obtained (recorded as `fail`, not `info`). Any other error
 * means "unknown". `instanceof LockNotAcquired` is true for an error of any copy of this class (it checks the brand).
 */
export class LockNotAcquired extends Error {
  readonly [LOCK_NOT_ACQUIRED] = true;
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'LockNotAcquired';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isLockNotAcquired(value);
  }
}

/** Whether `err` says "definitely not acquired": it carries the brand, whichever copy of fencepost made it. */
export function isLockNotAcquired(err: unknown): err is LockNotAcquired {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[LOCK_NOT_ACQUIRED] === true;
}

export interface LockClient {
  /** Resolves with a lease once held; rejects with LockNotAcquired after ctx.acquireTimeoutMs; any other error = unknown. */
  acquire(key: string): Promise<Lease>;
  /** Extend the lease by the TTL (the watchdog); resolves false if the lock is no longer ours. Optional. */
  renew?(lease: Lease): Promise<boolean>;
  /**
   * Whether the lock is still ours as far as the library knows, asked right before the write (optional). For a
   * library whose README checks before it acts (`if (signal.aborted) throw signal.error`, `while (mutex.isAcquired)`):
   * false skips the write, recorded as a `fail` with error `lock-lost` — the library told its user it lost the lock.
   * Synchronous: it reads the library's own state, it does not ask a server (that would be a renewal).
   */
  stillHeld?(lease: Lease): boolean;
  /** Give the lock up if it is still ours; resolves whether it was. */
  release(lease: Lease): Promise<boolean>;
  close(): Promise<void>;
}

export type ServerKind = 'redis' | 'etcd' | 'zk';

/** How many nodes of each server the strategy's lock runs on (0 or absent: none). */
export type StrategyServers = Partial<Record<ServerKind, number>>;

export interface LockStrategy {
  /** Shown in results and reports. */
  name: string;
  /** Servers the harness must start for it (Postgres, the resource, always runs). */
  needs: ServerKind[];
  /**
   * How many of each it needs (optional). Without it, each kind in `needs` gets the full cluster's count: 5
   * independent Redis masters, 3 etcd members, 3 ZooKeeper servers. A single-node Redis lock declares
   * `{ redis: 1 }`: the run starts one Redis and the faults aim at it. Must name the same kinds as `needs`.
   */
  servers?: StrategyServers;
  /**
   * `monotonic`: `Lease.token` only grows between holders (usable with --fencing);
   * `version`: the resource's own version column is the fence (the postgres strategy);
   * `none`: no token.
   */
  token: 'monotonic' | 'version' | 'none';
  /**
   * Whether `acquire` claims mutual exclusion (default true). `false` for strategies that take no lock (none,
   * postgres): their holders overlap by design, so the harness doesn't check mutual exclusion for them.
   */
  exclusive?: boolean;
  /** Why it has no fencing token (optional, with `token: 'none'`): what `--fencing` is refused with. */
  noTokenReason?: string;
  /**
   * Whether its lease expires unless the client renews it, so `--watchdog` applies (its client then has
   * `renew`). Optional: a strategy that doesn't say is taken as it was before this field existed — `--watchdog`
   * is accepted, and renewals happen when its client has `renew`.
   */
  renews?: boolean;
  /**
   * How long its lease certainly lasts from a request (optional; see LeaseTerms). Without it the promise checker
   * uses the `validityMs` the lock reports, or classifies the lock's overlaps unknown when it reports none.
   */
  lease?: LeaseTerms;
  /** The faults a run injects when `--nemesis` isn't given (optional; else the faults every lock must survive). */
  defaultFaults?: FaultName[];
  /**
   * Whether its client can swap the library's own retry loop for one of its own on `--retry=harness` (see
   * `LockContext.retry`). Optional, default false: `--retry=harness` is refused for it.
   */
  harnessRetry?: boolean;
  /**
   * Which errors that reach a client process's top level unhandled (an uncaught exception, an unhandled rejection)
   * the lock library raises itself, named (optional): `LostLockError` for redis-semaphore, whose default
   * `onLockLost` throws it from its refresh timer on purpose; a driver's unhandled `'error'` event. Return the name
   * to record, or undefined for anything else. The process still ends, as it would for the library's user; the
   * harness records the exit as the library's behaviour (`client-exited`, with `libraryCrash` naming it) and does not
   * count it toward the slot's give-up limit, which is there for clients that cannot run at all. Asked in the
   * client process only.
   */
  libraryCrash?(err: unknown): string | undefined;
  /**
   * Reach Postgres through a pgbouncer of the run in this pool mode (optional): the run starts one in
   * front of its Postgres and hands its address over as `LockContext.pgbouncerUrl`.
   */
  pgbouncer?: 'session' | 'transaction';
  /**
   * Its lock lives in DynamoDB (optional): the run starts a dynalite of its own, creates a lock table of the run's,
   * and hands both over as `LockContext.dynamodb`.
   */
  dynamodb?: true;
  connect(ctx: LockContext): Promise<LockClient>;
}

/**
 * Declare a plugin's strategy with its type checked where it is written (`export default defineLock({ … })`),
 * in TypeScript and, through an editor's JS type checking, in plain JavaScript. It returns its argument unchanged:
 * the harness validates and resolves every strategy the same way whether or not it went through here.
 */
export function defineLock<S extends LockStrategy>(strategy: S): S {
  return strategy;
}

/** Small seeded PRNG (mulberry32) for retry jitter: runs replay from --seed (ctx.seed). */
export { seededRandom } from '../common/random.ts';
