import { seededShuffle } from '../../common/seeded-shuffle.ts';
import { inOrder, type Grudge } from '../../nemesis/server-partition/grudge.ts';
import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** The fewest members it can split into something a quorum notices. */
const MIN_MEMBERS = 5;

/**
 * Every member sees a majority, and no two see the same one (Jepsen's majorities-ring): the members in a random
 * ring, each hearing only itself and its nearest neighbours on both sides (for 5: one on each side, so it is cut
 * from the two across the ring).
 */
export function majoritiesRing(members: readonly string[], random: () => number): Grudge {
  const n = members.length;
  if (n < MIN_MEMBERS)
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

/** A server↔server partition with Jepsen's `majorities-ring` grudge (nemesis/server-partition/partition-fault.ts). */
export const majoritiesRingFault = serverPartition({
  name: 'majorities-ring',
  minMembers: MIN_MEMBERS,
  says: 'every member sees a majority, no two the same one (5 members: each hears only its ring neighbours)',
  cut: (members, _leader, random) => majoritiesRing(members, random),
});
