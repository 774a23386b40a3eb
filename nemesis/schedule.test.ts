import { describe, expect, it } from 'vitest';
import { FAULT_NAMES, type FaultName } from '../faults/fault-names.ts';
import { faultSchedule, firstDelayFor, shortestUsefulRunS } from './schedule.ts';
import { majority, mastersToBreak } from './lock-servers.ts';

function take(faults: FaultName[], seed: number, n: number, intervalMs = 3000) {
  const out = [];
  for (const s of faultSchedule(faults, seed, { intervalMs, firstDelayMs: firstDelayFor(intervalMs) })) {
    out.push(s);
    if (out.length === n) break;
  }
  return out;
}

describe('fault schedule', () => {
  it('is a function of the seed: same seed, same steps; another seed, another order', () => {
    expect(take(FAULT_NAMES, 42, 30)).toEqual(take(FAULT_NAMES, 42, 30));
    expect(take(FAULT_NAMES, 42, 30).map((s) => s.fault)).not.toEqual(take(FAULT_NAMES, 43, 30).map((s) => s.fault));
  });

  it('runs every fault once per round, so a short run exercises all of them', () => {
    const steps = take(FAULT_NAMES, 7, FAULT_NAMES.length * 3);
    for (let round = 0; round < 3; round++) {
      const names = steps.slice(round * FAULT_NAMES.length, (round + 1) * FAULT_NAMES.length).map((s) => s.fault);
      expect([...names].sort()).toEqual([...FAULT_NAMES].sort());
    }
  });

  it('starts the first fault early, then spaces them by the interval', () => {
    const steps = take(['pause-holder'], 1, 4, 3000);
    expect(steps.map((s) => s.delayMs)).toEqual([1000, 3000, 3000, 3000]);
    expect(take(['pause-holder'], 1, 2, 300).map((s) => s.delayMs)).toEqual([300, 300]);
  });

  it('gives each step its own seed for its choices', () => {
    const seeds = take(FAULT_NAMES, 5, 50).map((s) => s.seed);
    expect(new Set(seeds).size).toBe(50);
  });

  it('is empty without faults', () => {
    expect([...faultSchedule([], 1, { intervalMs: 100, firstDelayMs: 100 })]).toEqual([]);
  });
});

describe('masters a restart or clock jump must break', () => {
  it.each([
    // [held, of n, must break]: the others can win only when n − held + broken ≥ majority(n)
    [5, 5, 3],
    [4, 5, 2],
    [3, 5, 1],
    [1, 1, 1],
    [0, 1, 0],
  ])('%i of %i held (a majority lock) → %i', (held, n, k) => {
    expect(mastersToBreak(held, n)).toBe(k);
    if (k > 0) expect(n - held + k).toBeGreaterThanOrEqual(majority(n));
    if (k > 0) expect(n - held + k - 1).toBeLessThan(majority(n));
  });

  it.each([
    // A key on fewer than a majority is not a majority lock (one node for --lock=redis or examples/my-lock.ts):
    // every node that holds it must lose it.
    [1, 5, 1],
    [2, 5, 2],
    [0, 5, 0],
  ])('%i of %i held (not a majority lock) → all %i', (held, n, k) => {
    expect(mastersToBreak(held, n)).toBe(k);
  });
});

describe('the shortest useful run', () => {
  it('leaves room for the first fault, the whole pause and the write after it', () => {
    // Defaults: first fault at 1000 ms, pause 3000 ms (1.5 × TTL), 1000 ms for the resumed holder's write.
    expect(shortestUsefulRunS(['pause-holder'], { intervalMs: 3000, pauseMs: 3000 })).toBe(5);
    expect(shortestUsefulRunS(['clock', 'pause-client'], { intervalMs: 500, pauseMs: 1200 })).toBe(3); // 500 + 1200 + 1000
    expect(shortestUsefulRunS(['delay-write'], { intervalMs: 3000, pauseMs: 3000 })).toBe(5); // the held write lands after the hold
  });

  it('asks nothing of faults that act at once', () => {
    expect(shortestUsefulRunS(['restart-empty', 'clock', 'kill'], { intervalMs: 3000, pauseMs: 3000 })).toBe(0);
    expect(shortestUsefulRunS([], { intervalMs: 3000, pauseMs: 3000 })).toBe(0);
  });
});
