import { crashInCache, npmLockRequire } from '../npm-lock-cache.ts';
import { LockNotAcquired, type Lease, type LockClient, type LockContext, type LockStrategy } from '../strategy.ts';
import { enterUsing, type UsingSection } from '../parts/using-section.ts';

/**
 * `advisory-lock@2.0.0`: a Postgres session advisory lock, as its README's first example uses it —
 * `const mutex = advisoryLock(connectionString)(name)`, `await mutex.withLock(async () => { … })` — on the run's own
 * Postgres (LockContext.postgresUrl: the resource's server and role). The only lock here with no lease at all.
 *
 * What it does (build/index.js; locks/advisory-lock/npm pins it): every `lock()` (and so every `withLock`) opens a new
 * `pg.Client` on the connection string, runs `SELECT pg_advisory_lock(k1, k2)` (two int4 from SHA-256 of the name)
 * and keeps that session until `unlock()` runs `pg_advisory_unlock` and ends it. No TTL, no renewal, no token. The
 * lock lives exactly as long as the session: a paused holder keeps it (its socket stays open), a killed holder frees
 * it at once (the kernel closes the socket), and a session the server ends frees it silently. It attaches no
 * `'error'` listener to its client, so a session ended while idle — the holder inside its section — throws from the
 * client's `'error'` event: the holder's process ends before it writes (the library's doing: libraryCrash).
 *
 * `pg_advisory_lock` waits in the server, forever. The one change to the README's usage is the user's own Postgres
 * setting, in the connection string: `options=-c lock_timeout=<the harness's acquire budget>`, so a wait ends as
 * `lock_not_available` (55P03, "not acquired") instead of holding a session the harness has given up on — which,
 * once granted, nobody would unlock.
 */
interface Mutex {
  withLock(fn: () => Promise<void>): Promise<void>;
}
type AdvisoryLock = (connectionString: string) => (name: string) => Mutex;

type Section = UsingSection<void>;

/** The run's Postgres with a lock_timeout: every wait for an advisory lock ends after `ms` (55P03). */
export function withLockTimeout(url: string, ms: number): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c lock_timeout=${ms}`);
  return u.toString();
}

class AdvisoryLockClient implements LockClient {
  private readonly open = new Set<Section>();

  constructor(private readonly mutexOf: (name: string) => Mutex) {}

  async acquire(key: string): Promise<Lease> {
    let section: Section;
    try {
      section = await enterUsing<void>((routine) => this.mutexOf(`fencepost:${key}`).withLock(() => routine()));
    } catch (err) {
      // lock_timeout ran out while pg_advisory_lock waited: the server cancelled the wait, nothing is held.
      if ((err as { code?: string }).code === '55P03')
        throw new LockNotAcquired(`advisory-lock: ${(err as Error).message}`, 1);
      throw err;
    }
    this.open.add(section);
    return { key, attempts: 1, handle: section };
  }

  async release(lease: Lease): Promise<boolean> {
    const section = lease.handle as Section;
    this.open.delete(section);
    section.leave();
    // withLock's finally: pg_advisory_unlock on the same session, then the session ends. It returns nothing about
    // whether the lock was held; an error (the session gone) rejects.
    await section.ended;
    return true;
  }

  async close(): Promise<void> {
    for (const s of this.open) {
      s.leave();
      s.ended.catch(() => {});
    }
    this.open.clear();
  }
}

const advisoryLock: LockStrategy = {
  name: 'advisory-lock',
  // Its lock lives in the run's Postgres, which every run starts (it holds the bank's accounts).
  needs: [],
  token: 'none',
  noTokenReason: 'advisory-lock hands out no fencing token (a session lock has none)',
  // No lease to renew.
  renews: false,
  lease: {
    kind: 'unknown',
    why: 'an advisory lock lasts as long as its Postgres session, whose end is not in the history',
  },
  defaultFaults: ['pause-holder', 'kill-holder', 'pause-node'],
  libraryCrash: crashInCache('advisory-lock'),
  async connect(ctx: LockContext) {
    if (!ctx.postgresUrl) throw new Error("advisory-lock needs the run's Postgres (LockContext.postgresUrl)");
    const advisory = (npmLockRequire('advisory-lock')('advisory-lock') as { default: AdvisoryLock }).default;
    return new AdvisoryLockClient(advisory(withLockTimeout(ctx.postgresUrl, ctx.acquireTimeoutMs)));
  },
};
export default advisoryLock;
