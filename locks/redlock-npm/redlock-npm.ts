import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import {
  LockNotAcquired,
  seededRandom,
  type LockClient,
  type Endpoint,
  type LockContext,
  type LockStrategy,
  type Lease,
} from '../strategy.ts';
import { ExecutionError, Redlock, type RedlockLock } from './redlock-package.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';

/**
 * The published `redlock` package (5.0.0-beta.2) over five independent ioredis clients. It is here to be measured
 * next to our own Redlock: per the oracle it is safe without faults and loses updates when a holder pauses past the
 * TTL or a master restarts empty — it has no fencing token.
 *
 * The row (`--retry=library`, the default) uses the package as its README does: `new Redlock(clients)` with the
 * package's own defaults (driftFactor 0.01, retryCount 10, retryDelay 200 ms, retryJitter 100 ms — the README's
 * example shows 200 ms of jitter, the code's default is 100; automaticExtensionThreshold 500 ms),
 * `redlock.acquire([resource], ttl)`, `lock.extend(ttl)` and `lock.release()`, each with those retries. What the
 * package does (node_modules/redlock/dist/esm/index.js), as far as the harness cares:
 * - acquire runs a Lua SET-if-absent with PX on every master and returns on the first quorum (3 of 5); on
 *   failure it retries after `retryDelay ± retryJitter`, and only after the last attempt does it run the release
 *   script on all masters.
 * - Every attempt of one `acquire` reuses the same value, and its acquire script refuses a key that exists — its
 *   *own* partial locks from the previous attempt included. So when clients split the masters' votes (after a
 *   majority of masters restarted empty, several waiters win some of the empty ones each), each is refused by its
 *   own partial locks on every later attempt until they expire a TTL later, and gives up after its 10 retries: a
 *   livelock, which the liveness checker measures (stalls: the lock free, clients waiting, nobody able to take it).
 *   Measured under the matrix's restart-empty cell (--nemesis-interval=500 --think=800 --time-limit=20): 3 of 6 seeds
 *   stalled past the TTL — seed 42 for 7.3 s with all 5 clients waiting and no fault active, 15 acquires of 11
 *   attempts failing in a row — and with --retry=harness none of 4 did (recovery max 0.8 s). README, *Failure modes
 *   and remedies*, has the table.
 * - validity: `expiration = start + ttl − (driftFactor·ttl + 2 ms)`, with `start` taken before the *first*
 *   attempt, not the successful one — conservative, but a lock won after many retries can come back with
 *   little or no validity left (mike-marcacci/node-redlock#299). Lease.validityMs reports what is left. Its 10
 *   retries (~2 s) outlast a 1 s TTL: under long work with --watchdog (--think=2500 --ttl=1000, seed 42) 7 of 18
 *   acquires came back with 0 ms, the watchdog could not extend them and their writes were skipped (UNKNOWN,
 *   one client wrote all 8; with --retry=harness VALID, 13 writes) — the oracle's "safe, may starve" there.
 * - `lock.release()` and `lock.extend()` use the same retry settings: releasing a lock that already expired
 *   retries 10 times (~2 s) before it says so.
 *
 * The remedy (`--retry=harness`, the matrix's "restart empty, --retry=harness" cell) is the workaround the package's
 * users give (mike-marcacci/node-redlock#121, #299): each try is one `redlock.acquire` with `retryCount: 0` (on
 * failure the package releases that attempt's partial locks at once), the waiting loop is ours (RETRY_DELAY_MS ±
 * RETRY_JITTER_MS from the run's seed, until the acquire timeout), and extend/release run one round. It also fixes
 * #299's stale validity: the package measures validity from the start of the call, which is then the winning try.
 *
 * In both, the ioredis clients are ours, not the README's bare `new Client({ host })`: fail fast on a down or paused
 * master (masterClient below), so a dead master is one vote against rather than a hang.
 */

/** Per-command deadline: a paused master must cost one short timeout per attempt, not a hang. */
const COMMAND_TIMEOUT_MS = 100;
const RETRY_DELAY_MS = 100;
const RETRY_JITTER_MS = 50;

export function resourceFor(key: string): string {
  return `fencepost:redlock-npm:${key}`;
}

function masterClient(endpoint: Endpoint): Redis {
  const client = new Redis({
    // host, port, password — and on a target its user, TLS and the run's key prefix.
    ...endpoint,
    // Fail fast while a master is down or paused: no offline queue, no per-request retries, a short deadline,
    // and never replay a lock command after a reconnect (it would take a lock long after we gave up on it).
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 500,
    // Keep reconnecting for as long as the client lives: masters come back after restarts.
    retryStrategy: (times) => Math.min(50 * times, 500),
  });
  // A dead master is a vote against, not a crash.
  client.on('error', () => {});
  return client;
}

/** Waits until every client is ready or `ms` passes: a master that is down at connect time is not fatal. */
async function readyWithin(clients: Redis[], ms: number): Promise<void> {
  await Promise.all(
    clients.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.status === 'ready') return resolve();
          const timer = setTimeout(done, ms);
          c.once('ready', done);
          function done() {
            clearTimeout(timer);
            c.off('ready', done);
            resolve();
          }
        }),
    ),
  );
}

class RedlockNpmClient implements LockClient {
  /** Retry jitter from the run's seed (the package's own jitter uses Math.random). */
  private readonly random: () => number;
  /** The workaround (`--retry=harness`): one package round per call, our loop around acquire. */
  private readonly oursRetry: boolean;

  constructor(
    private readonly ctx: LockContext,
    private readonly clients: Redis[],
    private readonly redlock: Redlock,
  ) {
    this.random = seededRandom(ctx.seed);
    this.oursRetry = ctx.retry === 'harness';
  }

  /** Per-call settings: the instance's (the package's defaults) for the row, one round for the workaround. */
  private get once(): { retryCount: number } | undefined {
    return this.oursRetry ? { retryCount: 0 } : undefined;
  }

  async acquire(key: string): Promise<Lease> {
    if (!this.oursRetry) {
      // As the README: the package retries by itself (retryCount 10, 200 ± 100 ms apart), then gives up.
      try {
        const lock = await this.redlock.acquire([resourceFor(key)], this.ctx.ttlMs);
        const attempts = lock.attempts.length;
        return { key, validityMs: Math.max(0, lock.expiration - Date.now()), attempts, handle: lock };
      } catch (err) {
        // The package's only "no quorum" error, after its last attempt (it then ran its release script).
        if (!(err instanceof ExecutionError)) throw err;
        throw new LockNotAcquired(
          `redlock-npm: no quorum for ${resourceFor(key)} in ${err.attempts.length} attempts: ${err.message}`,
          err.attempts.length,
        );
      }
    }
    const deadline = performance.now() + this.ctx.acquireTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      try {
        const lock = await this.redlock.acquire([resourceFor(key)], this.ctx.ttlMs, { retryCount: 0 });
        return { key, validityMs: Math.max(0, lock.expiration - Date.now()), attempts, handle: lock };
      } catch (err) {
        // The package's only "no quorum" error: locked elsewhere, or too few masters answered. It has already
        // run its release script on all masters, so this attempt leaves no partial lock behind.
        if (!(err instanceof ExecutionError)) throw err;
        if (performance.now() >= deadline) {
          throw new LockNotAcquired(
            `redlock-npm: no quorum for ${resourceFor(key)} in ${attempts} attempts: ${err.message}`,
            attempts,
          );
        }
      }
      await sleep(RETRY_DELAY_MS + Math.floor((this.random() * 2 - 1) * RETRY_JITTER_MS));
    }
  }

  /** The watchdog's extension: resolves false when a quorum no longer holds our value (or it already expired). */
  async renew(lease: Lease): Promise<boolean> {
    try {
      lease.handle = await this.redlock.extend(lease.handle as RedlockLock, this.ctx.ttlMs, this.once);
      lease.validityMs = Math.max(0, (lease.handle as RedlockLock).expiration - Date.now());
      return true;
    } catch (err) {
      if (err instanceof ExecutionError) return false;
      throw err;
    }
  }

  async release(lease: Lease): Promise<boolean> {
    try {
      await this.redlock.release(lease.handle as RedlockLock, this.once);
      return true;
    } catch (err) {
      // No quorum deleted our value: it had expired (or was never on a majority any more).
      if (err instanceof ExecutionError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    // disconnect(), not redlock.quit(): QUIT waits for a reply a paused master never sends.
    for (const c of this.clients) c.disconnect();
  }
}

const redlockNpm: LockStrategy = {
  name: 'redlock-npm',
  needs: ['redis'],
  servers: { redis: 5 },
  token: 'none',
  noTokenReason: 'the redlock package exposes no monotonic fencing token (lock values are random)',
  renews: true,
  // SET … PX on each master at or after the request, less Redlock's drift budget (driftFactor 0.01 × TTL + 2 ms).
  lease: { kind: 'ttl-from-request', driftFactor: REDLOCK_CLOCKS.maxRateError },
  // Redlock's caveats, as for our own implementation of the spec.
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  // --retry=harness: the users' workaround for the package's livelocking retry loop, a remedy cell of the matrix.
  harnessRetry: true,
  async connect(ctx) {
    const clients = ctx.redis.map(masterClient);
    await readyWithin(clients, 1_000);
    // The package's defaults, as its README constructs it; --retry=harness passes retryCount 0 per call instead.
    const redlock = new Redlock(clients);
    // The package already swallows its per-master errors with a no-op listener; ours states the intent.
    redlock.on('error', () => {});
    return new RedlockNpmClient(ctx, clients, redlock);
  },
};

export default redlockNpm;
