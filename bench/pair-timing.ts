import { setTimeout as sleep } from 'node:timers/promises';
import type { Quantiles } from '../checkers/run-results.ts';
import { quantiles } from '../checkers/op-stats.ts';
import { seededRandom } from '../common/random.ts';

/** How the overhead benchmark times an acquire/release pair: back to back, or paced as a run's client is. */

/** One thing to time: an acquire and the release that undoes it. */
export type Pair = { acquire: () => Promise<unknown>; release: () => Promise<unknown> };
export type AcquireRelease = { acquire: Quantiles; release: Quantiles };

export const ms = (x: number): string => `${x.toFixed(3)} ms`;

/** The client loop's stagger between iterations (workloads/client-loop.ts): a seeded 0–20 ms idle gap. */
export const STAGGER_MS = 20;

/**
 * Back to back: `samples` pairs with no gap, after a short warm-up (connection set-up, JIT and the server's first
 * allocation are not what we measure).
 */
export async function timed(pair: Pair, samples: number): Promise<AcquireRelease> {
  const [one] = await timedInterleaved([pair], samples, false);
  return one;
}

/**
 * Until `op` succeeds once, or `ms` pass (then its error): a cluster that has just booted may refuse its first calls
 * — etcd with auth on answers "revision of auth store is old" until its members agree on the auth store (seen here on
 * a floor's first txn, seconds after boot), which crashed a whole benchmark run. Warm-up only: measured ops never retry.
 */
export async function settled<T>(op: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

/** Up to 50 unmeasured pairs, the first one retried while the cluster settles. */
async function warmUp(pair: Pair, samples: number): Promise<void> {
  await settled(async () => {
    let held = false;
    try {
      await pair.acquire();
      held = true;
      await pair.release();
    } catch (err) {
      // A release that failed after its acquire succeeded: try again, or the next acquire finds the key still held.
      if (held)
        await Promise.resolve()
          .then(() => pair.release())
          .catch(() => {});
      throw err;
    }
  });
  for (let i = 1; i < Math.min(50, samples); i++) {
    await pair.acquire();
    await pair.release();
  }
}

/**
 * Paced, as a run's client is: before each acquire, a seeded 0–20 ms idle gap (on this VM an op after an idle gap
 * costs more than one back to back — CPU wake-up; measured: ioredis SET p50 0.11 ms back to back, 0.36 ms after 10 ms
 * idle — and a run's client always comes to its acquire after its stagger). Several pairs at once, op by op in turn:
 * drift on a shared machine hits them alike, so their difference is theirs, not the minute's.
 */
export async function timedInterleaved(pairs: Pair[], samples: number, paced = true): Promise<AcquireRelease[]> {
  for (const pair of pairs) await warmUp(pair, samples);
  const acquire = pairs.map((): number[] => []);
  const release = pairs.map((): number[] => []);
  const random = seededRandom(14);
  for (let i = 0; i < samples; i++) {
    for (const [k, pair] of pairs.entries()) {
      if (paced) await sleep(random() * STAGGER_MS);
      let t = performance.now();
      await pair.acquire();
      acquire[k].push(performance.now() - t);
      t = performance.now();
      await pair.release();
      release[k].push(performance.now() - t);
    }
  }
  return pairs.map((_, k) => ({ acquire: quantiles(acquire[k]), release: quantiles(release[k]) }));
}
