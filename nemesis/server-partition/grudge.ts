/**
 * Jepsen's grudges: which members of an ensemble stop hearing each other. Pure and seeded: the same members,
 * leader and random stream give the same sides, so a run's partitions replay with its seed.
 *
 * A grudge is given by its components (groups of members that still talk among themselves); every pair of members
 * that shares no component is cut. A bridge member is in both components, so it still hears everyone. A
 * majorities ring is the exception: its "components" are each member's own view (itself and its ring
 * neighbours), and a pair is cut when neither is in the other's view.
 */
export interface Grudge {
  /** The fault that cut it (faults/<name>/inject.ts, where each grudge's own cut is). */
  name: string;
  /** Groups of members that still talk among themselves, each in the members' original order. */
  components: string[][];
  /** Pairs of members that cannot talk (each pair once, in the members' order). */
  cuts: [string, string][];
}

export function inOrder(members: readonly string[], group: readonly string[]): string[] {
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

export function grudgeOf(name: string, members: readonly string[], components: string[][]): Grudge {
  const ordered = components.map((c) => inOrder(members, c));
  return { name, components: ordered, cuts: cutsOf(members, ordered) };
}
