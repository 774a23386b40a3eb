import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../locks/strategy.ts';
import { cutsOf } from './grudge.ts';
import { bridge } from '../../faults/bridge/inject.ts';
import { isolateLeader } from '../../faults/isolate-leader/inject.ts';
import { majoritiesRing } from '../../faults/majorities-ring/inject.ts';
import { majorityMinority } from '../../faults/majority-minority/inject.ts';

const three = ['etcd[0]', 'etcd[1]', 'etcd[2]'];
const five = ['n1', 'n2', 'n3', 'n4', 'n5'];

/** Members each one can still reach, from the cuts: what a grudge means. */
function reach(members: string[], cuts: [string, string][]): Record<string, string[]> {
  const cut = (a: string, b: string) => cuts.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  return Object.fromEntries(members.map((m) => [m, members.filter((o) => o !== m && !cut(m, o))]));
}

describe('grudges (Jepsen nemesis/combined)', () => {
  it('isolate-leader: the leader alone, cut from every other member, the rest still connected', () => {
    const g = isolateLeader(three, 'etcd[1]');
    expect(g.components).toEqual([['etcd[1]'], ['etcd[0]', 'etcd[2]']]);
    expect(g.cuts).toEqual([
      ['etcd[0]', 'etcd[1]'],
      ['etcd[1]', 'etcd[2]'],
    ]);
    expect(() => isolateLeader(three, 'zk[0]')).toThrow(/not one of/);
  });

  it('majority-minority: a strict majority and the rest, every cross pair cut, the same sides for the same seed', () => {
    for (const members of [three, five]) {
      const g = majorityMinority(members, seededRandom(7));
      const [major, minor] = g.components;
      expect(major.length).toBe(Math.floor(members.length / 2) + 1);
      expect([...major, ...minor].sort()).toEqual([...members].sort());
      expect(g.cuts.length).toBe(major.length * minor.length);
      expect(majorityMinority(members, seededRandom(7))).toEqual(g);
    }
    const sides = new Set(
      Array.from({ length: 20 }, (_, s) => JSON.stringify(majorityMinority(five, seededRandom(s)).components)),
    );
    expect(sides.size).toBeGreaterThan(1); // random halves, not always the same ones
  });

  it('bridge: 5 → 2 + bridge + 2, the bridge hears all, the halves never hear each other', () => {
    const g = bridge(five, seededRandom(3));
    const [a, b] = g.components;
    const shared = a.filter((m) => b.includes(m));
    expect(shared).toHaveLength(1);
    expect(a).toHaveLength(3);
    expect(b).toHaveLength(3);
    const r = reach(five, g.cuts);
    expect(r[shared[0]]).toHaveLength(4);
    for (const m of five.filter((x) => x !== shared[0])) expect(r[m]).toHaveLength(2); // its half-mate and the bridge
    expect(g.cuts).toHaveLength(4);
    // 3 members: 1 + bridge + 1, one cut.
    const small = bridge(three, seededRandom(3));
    expect(small.cuts).toHaveLength(1);
  });

  it('majorities-ring on 5: each member hears exactly 2 others (a majority with itself), no two the same majority', () => {
    const g = majoritiesRing(five, seededRandom(11));
    const r = reach(five, g.cuts);
    const majorities = five.map((m) => [m, ...r[m]].sort().join(','));
    for (const m of five) expect(r[m]).toHaveLength(2);
    expect(new Set(majorities).size).toBe(5);
    expect(g.cuts).toHaveLength(5);
    expect(majoritiesRing(five, seededRandom(11))).toEqual(g);
    expect(() => majoritiesRing(three, seededRandom(1))).toThrow(/at least 5/);
  });

  it('cutsOf: pairs that share no component, in the members order', () => {
    expect(cutsOf(['a', 'b', 'c', 'd'], [['a', 'b'], ['b', 'c'], ['d']])).toEqual([
      ['a', 'c'],
      ['a', 'd'],
      ['b', 'd'],
      ['c', 'd'],
    ]);
  });
});
