import { describe, expect, it } from 'vitest';
import { waitUntilAged } from './story-watch.ts';

/** A clock whose timers fire `earlyMs` before they are due (as Node's may, by a millisecond), yet never at once. */
function earlyTimers(startNs: number, earlyMs: number) {
  let now = startNs;
  const sleeps: number[] = [];
  return {
    nowNs: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += Math.max(ms / 2, ms - earlyMs) * 1e6;
    },
    sleeps,
    ageMs: (sinceNs: number) => (now - sinceNs) / 1e6,
  };
}

describe('waitUntilAged: a story step that needs a TTL to have passed on the history clock', () => {
  it('does not return before the age is reached when the timer fires a millisecond early', async () => {
    const since = 5_000_000_000;
    const clock = earlyTimers(since + 300e6, 1);
    await waitUntilAged(clock.nowNs, since, 2000, new AbortController().signal, clock.sleep);
    // One timer of 1700 ms fired at 1699: the write was 1999 ms old, and the judge refused the story.
    expect(clock.ageMs(since)).toBeGreaterThanOrEqual(2000);
    expect(clock.sleeps).toEqual([1700, 1, 1]);
  });

  it('waits for nothing when the age has already passed, and stops waiting once aborted', async () => {
    const since = 1_000_000;
    const late = earlyTimers(since + 2500e6, 0);
    await waitUntilAged(late.nowNs, since, 2000, new AbortController().signal, late.sleep);
    expect(late.sleeps).toEqual([]);

    const ac = new AbortController();
    ac.abort();
    const aborted = earlyTimers(since, 0);
    await waitUntilAged(aborted.nowNs, since, 2000, ac.signal, aborted.sleep);
    expect(aborted.sleeps).toEqual([]);
  });

  it('waits on the real clock by default', async () => {
    const now = () => Number(process.hrtime.bigint());
    const since = now();
    await waitUntilAged(now, since, 20, new AbortController().signal);
    expect((now() - since) / 1e6).toBeGreaterThanOrEqual(20);
  });
});
