import { describe, expect, it } from 'vitest';
import { runTiming, ttlFractionMs } from './run-timing.ts';

describe('runTiming', () => {
  it('derives every duration from the default TTL (2000 ms) as the harness used to spell them', () => {
    expect(runTiming({ ttlMs: 2000 })).toEqual({
      ttlMs: 2000,
      pauseMs: 3000,
      storyWaitMs: 8000,
      acquireTimeoutMs: 7000,
      stepTimeoutMs: 9000,
      stopGraceMs: 12_000,
      watchdogEveryMs: 666,
      connectTimeoutMs: 6000,
      clockStrobePeriodMs: 500,
      latencyChoicesMs: [100, 500, 1000],
    });
  });

  it('keeps an explicit --pause and rounds the derived one', () => {
    expect(runTiming({ ttlMs: 1000, pauseMs: 5000 }).pauseMs).toBe(5000);
    expect(runTiming({ ttlMs: 333 }).pauseMs).toBe(500);
    // A story-driven hold waits at most --pause when it is given, else 4 × TTL.
    expect(runTiming({ ttlMs: 1000, pauseMs: 5000 }).storyWaitMs).toBe(5000);
    expect(runTiming({ ttlMs: 333 }).storyWaitMs).toBe(1332);
  });

  it('floors the short ones: connect ≥ 5 s, strobe ≥ 50 ms, latency ≥ 1 ms, watchdog ≥ 1 ms', () => {
    const t = runTiming({ ttlMs: 100 });
    expect(t.connectTimeoutMs).toBe(5000);
    expect(t.clockStrobePeriodMs).toBe(50);
    expect(t.latencyChoicesMs).toEqual([5, 25, 50]);
    expect(t.watchdogEveryMs).toBe(33);
    expect(runTiming({ ttlMs: 2 }).watchdogEveryMs).toBe(1);
    expect(runTiming({ ttlMs: 10 }).latencyChoicesMs).toEqual([1, 3, 5]);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(runTiming({ ttlMs: 2000 }))).toBe(true);
  });
});

describe('ttlFractionMs', () => {
  it('rounds a think floor to the nearest ms and a restart-delay floor up', () => {
    expect(ttlFractionMs(1001, 0.4, 'nearest')).toBe(400);
    expect(ttlFractionMs(1001, 0.4, 'up')).toBe(401);
    expect(ttlFractionMs(2000, 0, 'up')).toBe(0);
  });
});
