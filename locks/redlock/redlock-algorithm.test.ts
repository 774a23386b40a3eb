import { describe, expect, it } from 'vitest';
import { quorum, redlockAcquire, redlockAttempt, redlockValidity, type RedlockMaster } from './redlock-algorithm.ts';

/** A master in memory: pure logic under test, not a stand-in for a Redis server in an integration test. */
class MemoryMaster implements RedlockMaster {
  keys = new Map<string, string>();
  sets = 0;
  releases = 0;
  constructor(private readonly answers: boolean | (() => boolean) = true) {}
  async trySet(key: string, value: string): Promise<boolean> {
    this.sets++;
    const ok = typeof this.answers === 'function' ? this.answers() : this.answers;
    if (!ok || this.keys.has(key)) return false;
    this.keys.set(key, value);
    return true;
  }
  async release(key: string, value: string): Promise<void> {
    this.releases++;
    if (this.keys.get(key) === value) this.keys.delete(key);
  }
}

/** A clock that advances by `step` ms at each reading: start, then end of the round. */
const steppingClock = (step: number) => {
  let t = 1_000_000;
  return { now: () => (t += step) };
};

describe('redlock validity', () => {
  it("matches the spec's worked example: TTL 10 000, 3 of 5 OK after 120 ms → 9 778 ms", () => {
    expect(redlockValidity(10_000, 120, 0.01)).toBe(9778);
  });

  it('needs a majority of the masters', () => {
    expect(quorum(5)).toBe(3);
    expect(quorum(3)).toBe(2);
    expect(quorum(1)).toBe(1);
  });

  it('holds with 3 of 5 and positive validity', async () => {
    const masters = [true, true, true, false, false].map((ok) => new MemoryMaster(ok));
    const a = await redlockAttempt(masters, 'k', 'v1', 10_000, steppingClock(120));
    expect(a).toEqual({ held: true, okCount: 3, elapsedMs: 120, validityMs: 9778 });
    expect(masters.reduce((n, m) => n + m.releases, 0)).toBe(0);
  });

  it('does not hold with 2 of 5, and releases on ALL masters', async () => {
    const masters = [true, true, false, false, false].map((ok) => new MemoryMaster(ok));
    const a = await redlockAttempt(masters, 'k', 'v1', 10_000, steppingClock(5));
    expect(a.held).toBe(false);
    expect(masters.map((m) => m.releases)).toEqual([1, 1, 1, 1, 1]);
    expect(masters.every((m) => !m.keys.has('k'))).toBe(true);
  });

  it('does not hold when the round took longer than the TTL allows, even with 5 of 5', async () => {
    const masters = Array.from({ length: 5 }, () => new MemoryMaster());
    const a = await redlockAttempt(masters, 'k', 'v1', 1000, steppingClock(990));
    expect(a.okCount).toBe(5);
    expect(a.validityMs).toBe(1000 - 990 - 12);
    expect(a.held).toBe(false);
    expect(masters.every((m) => m.releases === 1 && !m.keys.has('k'))).toBe(true);
  });

  it('retries after a random delay until a majority answers, then stops', async () => {
    let round = 0;
    // Masters 0–2 refuse during the first two rounds (5 sets per round), then accept.
    const flaky = () => new MemoryMaster(() => Math.floor(round++ / 5) >= 2);
    const masters = [flaky(), flaky(), flaky(), new MemoryMaster(false), new MemoryMaster(false)];
    const delays: number[] = [];
    let mono = 0;
    const res = await redlockAcquire(masters, 'k', 'v', 10_000, steppingClock(1), {
      timeoutMs: 10_000,
      retryDelayMs: () => 25,
      sleep: async (ms) => {
        delays.push(ms);
        mono += ms;
      },
      monotonicNow: () => mono,
    });
    expect(res.held).toBe(true);
    expect(res.attempts).toBeGreaterThan(1);
    expect(delays).toHaveLength(res.attempts - 1);
  });

  it('gives up at the timeout, holding nothing anywhere', async () => {
    const masters = [
      new MemoryMaster(),
      new MemoryMaster(),
      new MemoryMaster(false),
      new MemoryMaster(false),
      new MemoryMaster(false),
    ];
    let mono = 0;
    const res = await redlockAcquire(masters, 'k', 'v', 10_000, steppingClock(1), {
      timeoutMs: 100,
      retryDelayMs: () => 30,
      sleep: async (ms) => {
        mono += ms;
      },
      monotonicNow: () => mono,
    });
    expect(res.held).toBe(false);
    expect(res.attempts).toBe(5);
    expect(masters.every((m) => m.keys.size === 0)).toBe(true);
  });
});
