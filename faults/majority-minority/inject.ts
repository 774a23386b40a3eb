import { seededShuffle } from '../../common/seeded-shuffle.ts';
import { grudgeOf, type Grudge } from '../../nemesis/server-partition/grudge.ts';
import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** The fewest members it can split into something a quorum notices. */
const MIN_MEMBERS = 2;

/** Random halves: a majority (⌊n/2⌋+1 members) and the minority. */
export function majorityMinority(members: readonly string[], random: () => number): Grudge {
  const order = seededShuffle(random, members);
  const m = Math.floor(members.length / 2) + 1;
  return grudgeOf('majority-minority', members, [order.slice(0, m), order.slice(m)]);
}

/** A server↔server partition with Jepsen's `majority-minority` grudge (nemesis/server-partition/partition-fault.ts). */
export const majorityMinorityFault = serverPartition({
  name: 'majority-minority',
  minMembers: MIN_MEMBERS,
  says: 'the members split into a random majority and minority',
  cut: (members, _leader, random) => majorityMinority(members, random),
});
