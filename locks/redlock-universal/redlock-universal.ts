import { crashInCache, npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { readmeIoredis, type IoredisClient, type IoredisConstructor } from '../parts/readme-clients.ts';
import { enterUsing, type UsingSection } from '../parts/using-section.ts';
import { REDLOCK_CLOCKS } from '../clock-assumption.ts';

/**
 * `redlock-universal@0.8.5` (the successor @sesamecare-oss/redlock's README points to), its Quick Start: `createLock({
 * adapter: new IoredisAdapter(new Redis()), key, ttl })` and `lock.using(async (signal) => { …; if (signal.aborted)
 * throw new Error('Lock lost'); … })` — the check the README marks "(optional)", asked before the write
 * (`stillHeld`). Its defaults otherwise: retryAttempts 3, retryDelay 100 ms, the circuit breaker on (5 errors → every
 * acquire refused for 60 s), performance 'standard' (SimpleLock). One lock object per key, kept for the process's
 * life, as a user keeps the one they created (the breaker's state lives in it).
 *
 * Its package.json says `engines: { node: ">=22.0.0" }`: npm warns (EBADENGINE) on Node 20 and installs it; the code
 * uses nothing Node 22 has that 20 lacks (it loads and runs here on 20.20), so the row runs on Node 20 — measured on
 * a Node its authors do not support, which the findings page says.
 *
 * What it does (dist/index.cjs; locks/redlock-universal/npm pins it): acquire is `SET NX PX` with a fresh value, 4
 * tries 100 ms apart (~300 ms, then LockAcquisitionError); `using()` extends at `acquiredAt + 0.8 × ttl` (at least
 * 1 s after the last extension; at once when that has passed) with a script that refuses when less than
 * `min(2000, 0.1 × ttl)` ms are left ("Too late"), and aborts the signal when an extension fails — the routine is not
 * cancelled; its release after the routine swallows errors (`using()` never says whether the lock was still ours).
 */
interface UniversalSignal {
  aborted: boolean;
}
interface UniversalLock {
  using(routine: (signal: UniversalSignal) => Promise<void>): Promise<unknown>;
}
interface UniversalModule {
  createLock(config: { adapter: unknown; key: string; ttl: number }): UniversalLock;
  IoredisAdapter: new (client: IoredisClient) => unknown;
  LockAcquisitionError: new (...args: unknown[]) => Error;
}

type Section = UsingSection<UniversalSignal>;

class RedlockUniversalClient implements LockClient {
  private readonly locks = new Map<string, UniversalLock>();
  private readonly open = new Set<Section>();

  constructor(
    private readonly ctx: LockContext,
    private readonly client: IoredisClient,
    private readonly lib: UniversalModule,
    private readonly adapter: unknown,
  ) {}

  private lockFor(key: string): UniversalLock {
    let lock = this.locks.get(key);
    if (!lock) {
      lock = this.lib.createLock({
        adapter: this.adapter,
        key: `fencepost:redlock-universal:${key}`,
        ttl: this.ctx.ttlMs,
      });
      this.locks.set(key, lock);
    }
    return lock;
  }

  async acquire(key: string): Promise<Lease> {
    let section: Section;
    try {
      section = await enterUsing<UniversalSignal>((routine) => this.lockFor(key).using(routine));
    } catch (err) {
      // Its retries ran out, or its circuit breaker is open ("Circuit breaker is open - Redis is failing").
      if (err instanceof this.lib.LockAcquisitionError)
        throw new LockNotAcquired(`redlock-universal: ${err.message}`, 0);
      throw err;
    }
    this.open.add(section);
    return { key, attempts: 1, handle: section };
  }

  /** The README's `if (signal.aborted) throw new Error('Lock lost')`. */
  stillHeld(lease: Lease): boolean {
    return !(lease.handle as Section).arg.aborted;
  }

  async release(lease: Lease): Promise<boolean> {
    const section = lease.handle as Section;
    this.open.delete(section);
    const held = !section.arg.aborted;
    section.leave();
    // It releases in its own `finally` and swallows a failed release: the signal is all it tells.
    await section.ended;
    return held;
  }

  async close(): Promise<void> {
    for (const s of this.open) {
      s.leave();
      s.ended.catch(() => {});
    }
    this.open.clear();
    this.client.disconnect();
  }
}

const redlockUniversal: LockStrategy = {
  name: 'redlock-universal',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  noTokenReason: 'redlock-universal has no fencing token (its lock values are random)',
  // using() extends the lock itself: --watchdog does not apply.
  renews: false,
  // SET … PX on each master at or after the request, less Redlock's drift budget (driftFactor 0.01 × TTL + 2 ms).
  lease: { kind: 'ttl-from-request', driftFactor: REDLOCK_CLOCKS.maxRateError },
  defaultFaults: ['pause-holder', 'restart-empty', 'clock'],
  libraryCrash: crashInCache('redlock-universal'),
  async connect(ctx) {
    const require = npmLockRequire('redlock-universal');
    const Redis = require('ioredis') as IoredisConstructor;
    const lib = require('redlock-universal') as UniversalModule;
    const client = readmeIoredis(Redis, ctx.redis[0]);
    return new RedlockUniversalClient(ctx, client, lib, new lib.IoredisAdapter(client));
  },
};
export default redlockUniversal;
