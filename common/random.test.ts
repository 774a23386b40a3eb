import { describe, expect, it } from 'vitest';
import { deriveSeed, seededRandom } from './random.ts';

// Literal values, worked out from the formulas the harness used before deriveSeed existed (harness/run.ts:
// `(seed + slot * 7919) >>> 0` and `(seed * 31 + slot) >>> 0`, nemesis/schedule.ts: `seed ^ 0x5eed_fa17`,
// matrix/cell-decision.ts: `(seed + runs.length) % 2 ** 31`): a stored run's --seed must replay the same streams.
describe('deriveSeed', () => {
  it.each([
    [42, { purpose: 'lock-client', slot: 0 } as const, 42],
    [42, { purpose: 'lock-client', slot: 3 } as const, 23_799],
    [2 ** 31 - 1, { purpose: 'lock-client', slot: 4 } as const, 2_147_515_323],
    [42, { purpose: 'client-loop', slot: 0 } as const, 1302],
    [7, { purpose: 'client-loop', slot: 2 } as const, 219],
    [2 ** 31 - 1, { purpose: 'client-loop', slot: 1 } as const, 2_147_483_618],
    [42, { purpose: 'fault-schedule' } as const, 1_592_654_397],
    [0, { purpose: 'fault-schedule' } as const, 0x5eed_fa17],
    [42, { purpose: 'cell-run', attempt: 0 } as const, 42],
    [42, { purpose: 'cell-run', attempt: 2 } as const, 44],
    [2 ** 31 - 1, { purpose: 'cell-run', attempt: 1 } as const, 0],
  ])('seed %d, %j → %d', (seed, purpose, expected) => {
    expect(deriveSeed(seed, purpose)).toBe(expected);
  });
});

describe('seededRandom', () => {
  it('replays the same stream from the same seed (mulberry32)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    // The first two draws of seed 42 under the implementation that lived in workloads/strategy.ts.
    expect(first.slice(0, 2)).toEqual([0.6011037519201636, 0.44829055899754167]);
  });
});
