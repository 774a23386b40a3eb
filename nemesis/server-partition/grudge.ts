import { seededShuffle } from '../../common/seeded-shuffle.ts';

/**
 * Jepsen's grudges: which members of an ensemble stop hearing each other. Pure and seeded: the same members,
 * leader and random stream give the same sides, so a run's partitions replay with its seed.
 *
 * A grudge is given by its components (groups of members that still talk among themselves); every pair of members
 * that shares no component is cut. A bridge member is in both components, so it still hears everyone. A
 * majorities ring is the exception: its "components" are each member's own view (itself and its ring
 * neighbours), and a pair is cut when neither is in the other's view.
 */
export type GrudgeName = 'isolate-leader' | 'majority-minority' | 'bridge' | 'majorities-ring';

export interface Grudge {
  name: GrudgeName;
  /** Groups of members that still talk among themselves, each in the members' original order. */
  components: string[][];
  /** Pairs of members that cannot talk (each pair once, in the members' order). */
  cuts: [string, string][];
}

/** The fewest members each grudge can split into something a quorum notices. */
export const MIN_MEMBERS: Readonly<Record<GrudgeName, number>> = {
  'isolate-leader': 2,
  'majority-minority': 2,
  bridge: 3,
  'majorities-ring': 5,
};

function inOrder(members: readonly string[], group: readonly string[]): string[] {
  return members.filter((m) => group.includes(m));
}

/** Every pair of `members` that shares no component. */
export function cutsOf(members: readonly string[], components: readonly (readonly string[])[]): [string, string][] {
  const cuts: [string, string][] = [];
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      const [a, b] = [members[i], members[j]];
      if (!components.some((c) => c.includes(a) && c.includes(b))) cuts.push([a, b]);
    }
  }
  return cuts;
}

function grudgeOf(name: GrudgeName, members: readonly string[], components: string[][]): Grudge {
  const ordered = components.map((c) => inOrder(members, c));
  return { name, components: ordered, cuts: cutsOf(members, ordered) };
}

/** The leader alone on one side, everyone else on the other. */
export function isolateLeader(members: readonly string[], leader: string): Grudge {
  if (!members.includes(leader)) throw new Error(`isolate-leader: ${leader} is not one of ${members.join(', ')}`);
  return grudgeOf('isolate-leader', members, [[leader], members.filter((m) => m !== leader)]);
}

/** Random halves: a majority (⌊n/2⌋+1 members) and the minority. */
export function majorityMinority(members: readonly string[], random: () => number): Grudge {
  const order = seededShuffle(random, members);
  const m = Math.floor(members.length / 2) + 1;
  return grudgeOf('majority-minority', members, [order.slice(0, m), order.slice(m)]);
}

/**
 * Two halves joined by one member who hears both (Jepsen's bridge): 5 members split 2 + bridge + 2, 3 split
 * 1 + bridge + 1. Each half plus the bridge is a majority, so both halves think they can elect — through the
 * bridge, which votes for both.
 */
export function bridge(members: readonly string[], random: () => number): Grudge {
  const order = seededShuffle(random, members);
  const half = Math.floor((members.length - 1) / 2);
  const b = order[half];
  return grudgeOf('bridge', members, [order.slice(0, half + 1), [b, ...order.slice(half + 1)]]);
}

/**
 * Every member sees a majority, and no two see the same one (Jepsen's majorities-ring): the members in a random
 * ring, each hearing only itself and its nearest neighbours on both sides (for 5: one on each side, so it is cut
 * from the two across the ring).
 */
export function majoritiesRing(members: readonly string[], random: () => number): Grudge {
  const n = members.length;
  if (n < MIN_MEMBERS['majorities-ring'])
    throw new Error(`majorities-ring needs at least 5 members (every member sees a different majority); got ${n}`);
  const ring = seededShuffle(random, members);
  const reach = Math.floor((Math.floor(n / 2) + 1) / 2);
  const views = ring.map((_, i) => Array.from({ length: 2 * reach + 1 }, (_, k) => ring[(i - reach + k + n) % n]));
  // Views are not components: i and i+2 both hear i+1 but not each other. A pair is cut when it is farther apart
  // on the ring than a member reaches.
  const at = new Map(ring.map((m, i) => [m, i]));
  const cuts: [string, string][] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = Math.abs(at.get(members[i])! - at.get(members[j])!);
      if (Math.min(d, n - d) > reach) cuts.push([members[i], members[j]]);
    }
  }
  return { name: 'majorities-ring', components: views.map((v) => inOrder(members, v)), cuts };
}
