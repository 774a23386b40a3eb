import { describe, expect, it } from 'vitest';
import { seededRandom } from './random.ts';
import { seededShuffle } from './seeded-shuffle.ts';

// Literal orders, taken from the three copies this function replaced (nemesis/schedule.ts, nemesis/fault.ts
// pickSome, nemesis/server-partition/grudge.ts): a stored run's --seed must replay the same faults and sides.
describe('seededShuffle', () => {
  it.each<[number, readonly unknown[], unknown[]]>([
    [42, ['a', 'b', 'c', 'd', 'e'], ['a', 'e', 'c', 'b', 'd']],
    [1, [1, 2, 3, 4, 5, 6, 7, 8], [3, 2, 7, 8, 5, 4, 1, 6]],
    [5, [], []],
    [5, ['only'], ['only']],
  ])('seed %d shuffles %j into %j', (seed, items, expected) => {
    expect(seededShuffle(seededRandom(seed), items)).toEqual(expected);
  });

  it('returns a new array and leaves its input in order', () => {
    const items = Object.freeze(['a', 'b', 'c', 'd']);
    const out = seededShuffle(seededRandom(3), items);
    expect(out).not.toBe(items);
    expect([...out].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(items).toEqual(['a', 'b', 'c', 'd']);
  });
});
