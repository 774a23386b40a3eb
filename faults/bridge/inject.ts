import { seededShuffle } from '../../common/seeded-shuffle.ts';
import { grudgeOf, type Grudge } from '../../nemesis/server-partition/grudge.ts';
import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** The fewest members it can split into something a quorum notices. */
const MIN_MEMBERS = 3;

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

/** A server↔server partition with Jepsen's `bridge` grudge (nemesis/server-partition/partition-fault.ts). */
export const bridgeFault = serverPartition({
  name: 'bridge',
  minMembers: MIN_MEMBERS,
  says: 'two halves that cannot hear each other, joined by one member that hears both',
  cut: (members, _leader, random) => bridge(members, random),
});
