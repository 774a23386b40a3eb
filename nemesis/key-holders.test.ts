import { describe, expect, it } from 'vitest';
import { victimsOf } from './key-holders.ts';

/** Which of the nodes holding a key a fault strikes: as many as break the lock, or what a script named. */
describe('victimsOf', () => {
  const five = [0, 1, 2, 3, 4].map((i) => ({ name: `redis[${i}]` }));
  const names = (ns: { name: string }[] | null) => ns?.map((n) => n.name) ?? null;
  const first = () => 0;

  it('a free run strikes `needed` of them, at random; none when nothing need break', () => {
    expect(victimsOf(five, 3, undefined, first)).toHaveLength(3);
    expect(victimsOf(five, 0, undefined, first)).toBeNull();
  });

  it('a script strikes every node it named that holds the key, even fewer than break a majority', () => {
    expect(names(victimsOf(five, 3, new Set(['redis[0]', 'redis[1]']), first))).toEqual(['redis[0]', 'redis[1]']);
    expect(names(victimsOf(five, 3, new Set(['redis[0]', 'redis[1]', 'redis[2]', 'redis[3]']), first))).toEqual([
      'redis[0]',
      'redis[1]',
      'redis[2]',
      'redis[3]',
    ]);
    // Named nodes without the key are not struck; none of them holding it is nothing to strike.
    expect(names(victimsOf(five.slice(2), 2, new Set(['redis[1]', 'redis[2]']), first))).toEqual(['redis[2]']);
    expect(victimsOf(five.slice(2), 2, new Set(['redis[0]']), first)).toBeNull();
  });
});
