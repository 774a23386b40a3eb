// BROKEN ON PURPOSE — quorum counting: Redlock over 5 masters that is content with 2 of them.
//
// The defect: held iff `ok >= Math.floor(n / 2)` — half rounded down, 2 of 5, where the spec says a majority,
// `Math.floor(n / 2) + 1` = 3. Two minorities don't intersect: one client can hold 2 masters while another
// holds the other 3. Off-by-one quorums (`n / 2` with integer division, `>` vs `>=`) are a recurring bug in
// consensus-flavoured code.
//
// Exposed by: restart-empty with a restart delay longer than the TTL (--ttl=1000 --restart-delay=1200, the
// spec's own advice, which makes the correct Redlock safe), fired often (--nemesis-interval=300). While 3
// masters are down, the 2 that are up are a "quorum"; when the 3 come back empty, a second client takes them
// while the first still holds the 2. Contention alone also splits the masters now and then, less often (with
// --restart-delay=2500 and the default TTL a 6 s run caught it only 2 times in 3: fewer, longer faults).
// The report shows: INVALID; lost updates and overlapping holds next to the restart-empty bands, whose
// parameters name the killed masters.
// By script (redlock-minority.scenario.json): A holds all 5, `restart-empty A on redis[0,1]` empties two, A keeps
// three; `try B acquire` wins the two and is let in. The twin keeps B out while A writes: VALID, held.
// The twin, redlock-minority.fixed.ts, counts a majority of all 5 masters.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { LockNotAcquired, type LockStrategy } from 'fencepost';
import type { ExposedBy } from './exposed-by.ts';

export const exposedBy: ExposedBy = {
  script: { scenario: './redlock-minority.scenario.json' },
  nemesis: 'restart-empty',
  args: ['--ttl=1000', '--restart-delay=1200', '--nemesis-interval=300'],
  alsoByContention: 'two clients that split the five masters 2–3 both hold a "quorum" with no fault at all',
};

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
/** Per-master timeout, small against the TTL so a dead master can't eat the validity window (as the spec asks). */
const PER_NODE_TIMEOUT_MS = 50;
/** How long connect waits for a master that is not ready yet before going on without it. */
const READY_WAIT_MS = 5_000;

/** Resolves when the connection is ready, or after `ms` (never rejects: an 'error' meanwhile is a retry, not an end). */
function readyWithin(m: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    m.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
const DRIFT_FACTOR = 0.01;

const redlockMinority: LockStrategy = {
  name: 'broken-redlock-minority',
  needs: ['redis'],
  token: 'none',
  async connect(ctx) {
    const masters = ctx.redis.map(
      (ep) =>
        new Redis({
          ...ep,
          lazyConnect: true,
          commandTimeout: PER_NODE_TIMEOUT_MS,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          retryStrategy: () => 50,
        }),
    );
    for (const m of masters) m.on('error', () => {});
    // A master down at start must not stop the client: masters come back and reconnect in the background. But one
    // still connecting fails its SET at once (no offline queue), so each gets a bounded wait for 'ready': an acquire
    // on 3 of 5 masters right after start is not the lock a scenario strikes two of (CI saw the minority twin so).
    await Promise.all(masters.map((m) => m.connect().catch(() => {})));
    await Promise.all(masters.map((m) => (m.status === 'ready' ? null : readyWithin(m, READY_WAIT_MS))));
    const releaseAll = (key: string, value: string) =>
      Promise.all(masters.map((m) => m.eval(RELEASE, 1, key, value).catch(() => 0)));
    return {
      async acquire(key) {
        const value = crypto.randomUUID();
        const deadline = performance.now() + ctx.acquireTimeoutMs;
        for (let attempts = 1; ; attempts++) {
          const start = Date.now();
          const ok = (
            await Promise.all(
              masters.map((m) => m.set(`broken:${key}`, value, 'PX', ctx.ttlMs, 'NX').catch(() => null)),
            )
          ).filter((r) => r === 'OK').length;
          const validityMs = ctx.ttlMs - (Date.now() - start) - (DRIFT_FACTOR * ctx.ttlMs + 2);
          // DEFECT: half of 5 rounded down is 2, a minority: two clients can both reach it.
          if (ok >= Math.floor(masters.length / 2) && validityMs > 0)
            return { key, attempts, validityMs, handle: value };
          await releaseAll(`broken:${key}`, value);
          if (performance.now() > deadline)
            throw new LockNotAcquired(
              `broken:${key}: ${ok}/${masters.length} masters after ${attempts} tries`,
              attempts,
            );
          await sleep(10 + Math.random() * 40);
        }
      },
      async release(lease) {
        const released = await releaseAll(`broken:${lease.key}`, String(lease.handle));
        return released.filter((r) => r === 1).length > 0;
      },
      async close() {
        for (const m of masters) m.disconnect();
      },
    };
  },
};
export default redlockMinority;
