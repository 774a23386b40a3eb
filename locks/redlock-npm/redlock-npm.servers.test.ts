import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LockNotAcquired, type Lease } from '../strategy.ts';
import { ExecutionError, Redlock } from './redlock-package.ts';
import redlockNpm, { resourceFor } from './redlock-npm.ts';
import { handOver } from '../../test/support/hand-over.ts';
import { useStrategyCluster } from '../../test/support/strategy-test-cluster.ts';
import { eventually } from '../../test/support/eventually.ts';

const direct: Redis[] = [];
const env = useStrategyCluster(redlockNpm, { redis: 5 }, { ttlMs: 5_000, acquireTimeoutMs: 2_000, seed: 3 });
const { connect } = env;

/**
 * How many masters hold `key` right now, read with clients of our own (a paused master counts as not holding).
 * Redlock resolves on the third vote, so the others may still be on their way: `settleMs` lets them land.
 */
async function holders(key: string): Promise<number> {
  const values = await Promise.all(direct.map((r) => r.get(resourceFor(key)).catch(() => null)));
  return values.filter((v) => v !== null).length;
}

/**
 * How many masters hold `key` once that count is `n`: acquire and release return on a quorum, the other masters'
 * answers land a moment later. Within 2 s, well inside the 5 s TTL, so a key left behind cannot pass by expiring.
 */
async function settledHolders(key: string, n: number): Promise<number> {
  await eventually(`${n} masters holding ${key}`, async () => (await holders(key)) === n, 2_000).catch(() => {});
  return holders(key);
}

beforeAll(async () => {
  for (const n of env.cluster.redis) {
    // Our own observers: they must neither hang on a paused master nor give up on a restarted one.
    const r = new Redis({
      ...n.endpoint(),
      commandTimeout: 200,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => 100,
    });
    r.on('error', () => {});
    direct.push(r);
  }
  await Promise.all(direct.map((r) => new Promise((resolve) => r.once('ready', resolve))));
});

afterEach(async () => {
  // A failed assertion must not leave masters paused for the next test.
  await Promise.all(env.cluster.redis.map((n) => n.resume()));
});

afterAll(() => {
  for (const r of direct) r.disconnect();
});

describe('redlock-npm strategy (the published redlock 5.0.0-beta.2 with ioredis 5)', () => {
  it('declares what the harness needs', () => {
    expect(redlockNpm.name).toBe('redlock-npm');
    expect(redlockNpm.needs).toEqual(['redis']);
    expect(redlockNpm.token).toBe('none');
  });

  it('sets the lock on the masters with the TTL and reports validity net of drift', async () => {
    const a = await connect();
    const lease = await a.acquire('basic');
    expect(lease.token).toBeUndefined();
    // TTL 5000 ms, drift 1 % + 2 ms = 52 ms: at most 4948 ms of validity, minus the round trip.
    expect(lease.validityMs).toBeLessThanOrEqual(4_948);
    expect(lease.validityMs).toBeGreaterThan(4_800);
    expect(await settledHolders('basic', 5)).toBe(5);
    const pttl = await direct[0].pttl(resourceFor('basic'));
    expect(pttl).toBeGreaterThan(4_500);
    expect(pttl).toBeLessThanOrEqual(5_000);
    expect(await a.release(lease)).toBe(true);
    expect(await settledHolders('basic', 0)).toBe(0);
  });

  it('makes a second client wait until the first releases, then hands it the lock', async () => {
    const [a, b] = [await connect(), await connect()];
    const { second: lease, secondDoneEarly, released, wokeAfterMs } = await handOver(a, b, 'contend');
    expect(secondDoneEarly).toBe(false);
    expect(released).toBe(true);
    // Polling, not waiting on an event: the next retry comes within retryDelay + jitter (150 ms).
    expect(wokeAfterMs).toBeLessThan(500);
    expect(lease.attempts).toBeGreaterThan(1);
    expect(await b.release(lease)).toBe(true);
  });

  it('times out with LockNotAcquired while another client holds the lock', async () => {
    const a = await connect();
    const b = await connect({ acquireTimeoutMs: 600, retry: 'harness' });
    const held = await a.acquire('timeout');
    const started = performance.now();
    const err = await b.acquire('timeout').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LockNotAcquired);
    // One attempt per ~100 ± 50 ms (the strategy's own loop) for 600 ms.
    expect((err as LockNotAcquired).attempts).toBeGreaterThanOrEqual(4);
    expect((err as LockNotAcquired).attempts).toBeLessThanOrEqual(13);
    expect(elapsed).toBeGreaterThan(400);
    expect(elapsed).toBeLessThan(1_500);
    // The loser's cleanup (release script on all masters) must not have touched the holder's value.
    expect(await settledHolders('timeout', 5)).toBe(5);
    expect(await a.release(held)).toBe(true);
  });

  it("with the package's defaults, acquire gives up after its own 10 retries (200 ± 100 ms apart), whatever the acquire timeout", async () => {
    const a = await connect();
    const b = await connect({ acquireTimeoutMs: 600 });
    const held = await a.acquire('timeout-pkg');
    const started = performance.now();
    const err = await b.acquire('timeout-pkg').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LockNotAcquired);
    expect((err as LockNotAcquired).attempts).toBe(11);
    // 10 waits of 100–300 ms: the package's budget, not the run's 600 ms.
    expect(elapsed).toBeGreaterThan(1_000);
    expect(elapsed).toBeLessThan(3_500);
    expect(await settledHolders('timeout-pkg', 5)).toBe(5);
    expect(await a.release(held)).toBe(true);
  });

  it("with the package's defaults, releasing an expired lock retries 10 times before it answers false", async () => {
    const a = await connect({ ttlMs: 800 });
    const lease = await a.acquire('expire-pkg');
    await eventually('the 800 ms lock expired on every master', async () => (await holders('expire-pkg')) === 0, 5_000);
    const started = performance.now();
    expect(await a.release(lease)).toBe(false);
    expect(performance.now() - started).toBeGreaterThan(1_000);
  });

  it('renew extends a held lock; release and renew of an expired lock answer false at once (--retry=harness)', async () => {
    const a = await connect({ ttlMs: 800, retry: 'harness' });
    const lease = await a.acquire('expire');
    // Renewed once the lock has run down below 500 ms on every master, a PTTL above 600 after it can only be the renewal.
    const pttls = () => Promise.all(direct.map((r) => r.pttl(resourceFor('expire'))));
    await eventually(
      'the lock run down below 500 ms on every master',
      async () => Math.max(...(await pttls())) < 500,
      5_000,
    );
    // Each master's absolute expiry (PEXPIRETIME, Redis 7) before the renewal: a later one after it can only be the
    // renewal, however late it is read. (A PTTL decays while a busy machine reads it: CI once read 283 ms on a master
    // 300 ms after renew returned, and could not tell a late renewal from none.)
    const key = resourceFor('expire');
    const expiries = () => Promise.all(direct.map((r) => r.call('PEXPIRETIME', key).then(Number)));
    const before = await expiries();
    expect(await a.renew!(lease)).toBe(true);
    // extend, too, returns on the third vote (the first EVALSHA of a script on a master costs a NOSCRIPT retry): the
    // other two land a moment later. Each master counts once seen renewed (its key then expires, 800 ms on).
    const renewed = new Set<number>();
    await eventually(
      'every master renewed',
      async () => {
        (await expiries()).forEach((at, i) => at > before[i] && renewed.add(i));
        return renewed.size === direct.length;
      },
      2_000,
    ).catch(() => {});
    expect([...renewed].sort()).toEqual([0, 1, 2, 3, 4]);
    await eventually('the renewed lock expired on every master', async () => (await holders('expire')) === 0, 5_000);
    expect(await holders('expire')).toBe(0);
    const started = performance.now();
    expect(await a.release(lease)).toBe(false);
    expect(await a.renew!(lease)).toBe(false);
    expect(performance.now() - started).toBeLessThan(300); // one round, not acquire's retry budget
  });

  it('acquires and releases with 2 of 5 masters paused', async () => {
    const a = await connect();
    await env.cluster.redis[1].pause();
    await env.cluster.redis[3].pause();
    const started = performance.now();
    const lease = await a.acquire('minority-paused');
    expect(performance.now() - started).toBeLessThan(500);
    expect(lease.attempts).toBe(1);
    expect(await holders('minority-paused')).toBeGreaterThanOrEqual(3);
    expect(await a.release(lease)).toBe(true);
  });

  it('fails with LockNotAcquired with 3 of 5 masters paused, and works again once they resume', async () => {
    const a = await connect({ acquireTimeoutMs: 500, retry: 'harness' });
    for (const i of [0, 2, 4]) await env.cluster.redis[i].pause();
    const started = performance.now();
    const err = await a.acquire('majority-paused').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LockNotAcquired);
    // Every attempt waits out the 100 ms command timeout on the paused masters, on top of the retry delay.
    expect(elapsed).toBeLessThan(2_000);
    for (const i of [0, 2, 4]) await env.cluster.redis[i].resume();
    // The paused masters now run the queued SET and release script of every attempt (same connection, so in
    // that order): nothing stays behind.
    expect(await settledHolders('majority-paused', 0)).toBe(0);
    const lease = await a.acquire('majority-paused');
    expect(await a.release(lease)).toBe(true);
  });

  it('reconnects to a master that was killed and restarted empty', async () => {
    const a = await connect();
    await env.cluster.redis[4].kill();
    const whileDown = await a.acquire('restart');
    expect(whileDown.attempts).toBe(1);
    await a.release(whileDown);
    await env.cluster.redis[4].start();
    // retryStrategy keeps trying (every ≤ 500 ms): the restarted master soon gets votes again.
    const voteOnRestarted = async () => {
      const lease = await a.acquire('restart');
      // acquire returns on a quorum: the restarted master's vote may land a moment after it.
      const vote = await eventually(
        'the vote on the restarted master',
        () => direct[4].get(resourceFor('restart')).then((v) => v ?? undefined),
        150,
      ).catch(() => undefined); // not yet: the next acquire tries again
      await a.release(lease);
      return vote;
    };
    const onRestarted = await eventually('the restarted master votes again', voteOnRestarted, 5_000).catch(() => null);
    expect(onRestarted).not.toBeNull();
  });

  /** Masters 0 and 1 held by someone else, master 4 paused: an attempt can win only masters 2 and 3. */
  async function splitVotes(key: string): Promise<() => Promise<void>> {
    await direct[0].set(key, 'someone-else', 'PX', 60_000);
    await direct[1].set(key, 'someone-else', 'PX', 60_000);
    await env.cluster.redis[4].pause();
    return async () => {
      await direct[0].del(key);
      await direct[1].del(key);
    };
  }

  /** An attempt has won the only masters it can (2 and 3): its partial lock is there. */
  async function wonMinority(key: string): Promise<void> {
    const won = async () => (await Promise.all([direct[2].get(key), direct[3].get(key)])).every((v) => v !== null);
    await eventually(`an attempt holding masters 2 and 3 of ${key}`, won, 5_000);
  }

  it("the package's own retry loop blocks itself on its own partial locks (why the strategy loops itself)", async () => {
    // The spec releases on all masters after a failed attempt. The package, with retryCount > 0, releases only
    // after the *last* attempt, and its acquire script refuses a key that exists — even with its own value. So
    // once an attempt has won a minority, later attempts of the same acquire() cannot count those masters.
    const key = 'fencepost:pkg-own-partial';
    const redlock = new Redlock(direct, { retryCount: 15, retryDelay: 100, retryJitter: 0 });
    redlock.on('error', () => {});
    const holderLeaves = await splitVotes(key);
    const attempt = redlock.acquire([key], 5_000).catch((e: unknown) => e);
    await wonMinority(key);
    // Masters 2 and 3 carry the value of its first attempt: its own partial lock.
    const partial = await Promise.all([direct[2].get(key), direct[3].get(key)]);
    expect(partial[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(partial[1]).toBe(partial[0]);
    // The other holder goes away: masters 0–3 have no foreign lock, and 4 of 5 answer — still no quorum.
    await holderLeaves();
    expect(await attempt).toBeInstanceOf(ExecutionError);
    await env.cluster.redis[4].resume();
    const values = () => Promise.all(direct.map((r) => r.get(key).catch(() => null)));
    await eventually('its final release ran', async () => (await values()).every((v) => v === null), 2_000).catch(
      () => {},
    );
    const left = await values();
    expect(left.filter((v) => v !== null)).toEqual([]); // its final release did clean up
  });

  it("as the README uses it (the row), the strategy's acquire blocks itself on its own partial locks: the holder leaves, and it still gives up", async () => {
    const a = await connect({ ttlMs: 5_000 });
    const holderLeaves = await splitVotes(resourceFor('own-partial-pkg'));
    const attempt = a.acquire('own-partial-pkg').catch((e: unknown) => e);
    await wonMinority(resourceFor('own-partial-pkg'));
    await holderLeaves();
    // Masters 0–3 free of any foreign lock, 4 of 5 answering, and yet: its partial locks on 2 and 3 (TTL 5 s) vote
    // against every later attempt of the same call until it runs out of retries (~2 s).
    const err = await attempt;
    expect(err).toBeInstanceOf(LockNotAcquired);
    expect((err as LockNotAcquired).attempts).toBe(11);
    await env.cluster.redis[4].resume();
  });

  it('the strategy releases each failed attempt (--retry=harness), so it wins as soon as the holder leaves', async () => {
    const a = await connect({ ttlMs: 5_000, acquireTimeoutMs: 3_000, retry: 'harness' });
    const holderLeaves = await splitVotes(resourceFor('own-partial'));
    const attempt = a.acquire('own-partial').catch((e: unknown) => e);
    await wonMinority(resourceFor('own-partial'));
    const left = performance.now();
    await holderLeaves();
    const lease = await attempt;
    expect(lease).not.toBeInstanceOf(Error);
    // The next attempt after the holder left wins: one retry delay (≤ 150 ms) plus a paused master's timeout.
    expect(performance.now() - left).toBeLessThan(1_000);
    expect(await holders('own-partial')).toBeGreaterThanOrEqual(3);
    expect(await a.release(lease as Lease)).toBe(true);
  });
});
