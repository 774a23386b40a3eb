import { npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { readmeIoredis, type IoredisClient, type IoredisConstructor } from '../parts/readme-clients.ts';
import { enterUsing, type UsingSection } from '../parts/using-section.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';

/**
 * `@sesamecare-oss/redlock@1.4.0`, the maintained fork of node-redlock's v5 (its README now points to
 * redlock-universal as its successor), as its README's first example uses it: `redlock.using([key], ttl, async
 * (signal) => { …; if (signal.aborted) throw signal.error; … })` over five README ioredis clients, with the package's
 * defaults (driftFactor 0.01, retryCount 10, retryDelay 200 ms, retryJitter 100 ms — the README's example shows 200 —
 * automaticExtensionThreshold 500 ms). The routine is the bank loop's section (using-section.ts); the README's
 * `signal.aborted` check is asked right before the write (`stillHeld`).
 *
 * What the package does (build/index.js; locks/redlock-sesame/npm pins it):
 * - acquire is the v5 retry loop: one value for every attempt, an acquire script that refuses a key that exists —
 *   its own partial locks included — and partials released only after the last attempt fails. The beta's livelock
 *   after a majority restart should be here too. Validity is measured from the winning attempt (node-redlock #299 is
 *   fixed) but never checked: a quorum that took longer than the TTL is still handed out.
 * - `using()` extends the lock `expiration − now − 500 ms` after each acquire or extension; a failed extension
 *   retries at once while the lock has not expired, else aborts the signal. The routine is not cancelled. After the
 *   routine it awaits an extension in flight, then `release()` (10 retries when the lock is gone: ~2 s).
 * - The TTL must be ≥ 600 ms ("A lock `duration` must be at least 100ms greater than the
 *   `automaticExtensionThreshold` setting"): below that `using()` throws at once, every acquire.
 */
interface SesameLock {
  expiration: number;
  attempts: unknown[];
}
interface SesameSignal {
  aborted: boolean;
  error?: Error;
}
interface SesameRedlock {
  using(
    keys: string[],
    ttl: number,
    routine: (signal: SesameSignal, ctx: { lock: SesameLock }) => Promise<void>,
  ): Promise<unknown>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}
interface SesameModule {
  Redlock: new (clients: IoredisClient[]) => SesameRedlock;
  ExecutionError: new (...args: unknown[]) => Error & { attempts: unknown[] };
}

export function resourceFor(key: string): string {
  return `fencepost:redlock-sesame:${key}`;
}

type Section = UsingSection<SesameSignal>;

class RedlockSesameClient implements LockClient {
  private readonly open = new Set<Section>();

  constructor(
    private readonly ctx: LockContext,
    private readonly clients: IoredisClient[],
    private readonly redlock: SesameRedlock,
    private readonly lib: SesameModule,
  ) {}

  async acquire(key: string): Promise<Lease> {
    let lock: SesameLock | undefined;
    let section: Section;
    try {
      section = await enterUsing<SesameSignal>((routine) =>
        this.redlock.using([resourceFor(key)], this.ctx.ttlMs, (signal, context) => {
          lock = context.lock;
          return routine(signal);
        }),
      );
    } catch (err) {
      // "The operation was unable to achieve a quorum during its retry window", after its 11 attempts.
      if (!(err instanceof this.lib.ExecutionError)) throw err;
      throw new LockNotAcquired(`redlock-sesame: ${err.message}`, err.attempts.length);
    }
    this.open.add(section);
    const validityMs = lock ? Math.max(0, lock.expiration - Date.now()) : undefined;
    return {
      key,
      attempts: lock?.attempts.length ?? 1,
      ...(validityMs !== undefined ? { validityMs } : {}),
      handle: section,
    };
  }

  /** The README's check before acting: `if (signal.aborted) throw signal.error`. */
  stillHeld(lease: Lease): boolean {
    return !(lease.handle as Section).arg.aborted;
  }

  async release(lease: Lease): Promise<boolean> {
    const section = lease.handle as Section;
    this.open.delete(section);
    section.leave();
    try {
      await section.ended;
      return true;
    } catch (err) {
      // Its release found no quorum holding our value: the lock had expired or was taken.
      if (err instanceof this.lib.ExecutionError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    // A section still open (its client goes on as a new process after an `info`) must not keep extending its lock.
    for (const s of this.open) {
      s.leave();
      s.ended.catch(() => {});
    }
    this.open.clear();
    for (const c of this.clients) c.disconnect();
  }
}

const redlockSesame: LockStrategy = {
  name: 'redlock-sesame',
  needs: ['redis'],
  servers: { redis: 5 },
  token: 'none',
  noTokenReason: '@sesamecare-oss/redlock exposes no monotonic fencing token (lock values are random)',
  // using() extends the lock itself: --watchdog does not apply.
  renews: false,
  // SET … PX on each master at or after the request, less Redlock's drift budget (driftFactor 0.01 × TTL + 2 ms).
  lease: { kind: 'ttl-from-request', driftFactor: REDLOCK_CLOCKS.maxRateError },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock', 'pause-node'],
  async connect(ctx) {
    const require = npmLockRequire('redlock-sesame');
    const Redis = require('ioredis') as IoredisConstructor;
    const lib = require('@sesamecare-oss/redlock') as SesameModule;
    const clients = ctx.redis.map((e) => readmeIoredis(Redis, e));
    const redlock = new lib.Redlock(clients);
    // It emits every per-master failure on the instance ("even if the error is ignored in its normal operation"); it
    // registers a no-op listener itself, and the README's Error Handling section adds one to log them. Ours drops them.
    redlock.on('error', () => {});
    return new RedlockSesameClient(ctx, clients, redlock, lib);
  },
};
export default redlockSesame;
