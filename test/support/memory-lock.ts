import { LockNotAcquired, type Lease, type LockClient, type LockStrategy } from '../../locks/strategy.ts';
import type { VirtualTime } from './virtual-time.ts';

export interface MemoryLockOptions {
  name: string;
  ttlMs: number;
  acquireTimeoutMs: number;
  /** Chance that an acquire is granted although another client holds the lock: a lock that failed. */
  brokenRate?: number;
  random: () => number;
  /** Per-call latency, ms. */
  latency: () => number;
  /** Replaces the token of one grant (the n-th, 1-based), to put a hostile string into a history. */
  tokenOverride?: { grant: number; token: string };
}

interface Held {
  owner: object;
  token: number;
  expiresAt: number;
}

/**
 * A lock with a TTL and a monotonic token, in memory on a virtual clock: what a correct lock server does, plus an
 * optional fault (granting a held lock). A client's `close` drops its locks, as a session or connection ending
 * does; otherwise an unreleased lock expires after the TTL.
 */
export class MemoryLock {
  readonly keys = new Map<string, Held>();
  brokenGrants = 0;
  private tokens = 0;
  private grants = 0;
  /** Clients waiting for a key: woken when it is released, as a server's queue or watch would. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    private readonly time: VirtualTime,
    private readonly opts: MemoryLockOptions,
  ) {}

  strategy(): LockStrategy {
    return { name: this.opts.name, needs: [], token: 'monotonic', connect: async () => this.client() };
  }

  private client(): LockClient {
    const owner = {};
    const { time, opts } = this;
    return {
      acquire: async (key: string): Promise<Lease> => {
        const deadline = time.nowMs + opts.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          await time.sleep(opts.latency());
          const held = this.keys.get(key);
          const free = !held || held.expiresAt <= time.nowMs;
          const broken = !free && opts.random() < (opts.brokenRate ?? 0);
          if (free || broken) {
            if (broken) this.brokenGrants++;
            const token = ++this.tokens;
            // A broken grant leaves the real holder's entry in place: it still believes, rightly, that it holds it.
            if (free) this.keys.set(key, { owner, token, expiresAt: time.nowMs + opts.ttlMs });
            const grant = ++this.grants;
            const shown = opts.tokenOverride?.grant === grant ? opts.tokenOverride.token : String(token);
            return { key, token: shown, attempts, handle: token };
          }
          if (time.nowMs >= deadline) throw new LockNotAcquired(`${key} is held`, attempts);
          await this.waitFor(key, Math.min(50, held!.expiresAt - time.nowMs, deadline - time.nowMs));
        }
      },
      release: async (lease: Lease): Promise<boolean> => {
        await time.sleep(opts.latency());
        const held = this.keys.get(lease.key);
        if (!held || held.owner !== owner || held.token !== lease.handle) return false;
        this.keys.delete(lease.key);
        this.wake(lease.key);
        return held.expiresAt > time.nowMs;
      },
      close: async () => {
        for (const [key, held] of this.keys) {
          if (held.owner !== owner) continue;
          this.keys.delete(key);
          this.wake(key);
        }
      },
    };
  }

  private waitFor(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiting.get(key) ?? new Set();
      this.waiting.set(key, set);
      const done = () => {
        set.delete(done);
        cancel();
        resolve();
      };
      const cancel = this.time.setTimer(Math.max(0, ms), done);
      set.add(done);
    });
  }

  private wake(key: string): void {
    for (const done of [...(this.waiting.get(key) ?? [])]) done();
  }
}
