import { grudgeOf, type Grudge } from '../../nemesis/server-partition/grudge.ts';
import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** The fewest members it can split into something a quorum notices. */
const MIN_MEMBERS = 2;

/** The leader alone on one side, everyone else on the other. */
export function isolateLeader(members: readonly string[], leader: string): Grudge {
  if (!members.includes(leader)) throw new Error(`isolate-leader: ${leader} is not one of ${members.join(', ')}`);
  return grudgeOf('isolate-leader', members, [[leader], members.filter((m) => m !== leader)]);
}

/** A server↔server partition with Jepsen's `isolate-leader` grudge (nemesis/server-partition/partition-fault.ts). */
export const isolateLeaderFault = serverPartition({
  name: 'isolate-leader',
  minMembers: MIN_MEMBERS,
  says: 'the current leader (Redis: the primary) alone on one side, the other members on the other',
  cut: (members, leader) => (leader ? isolateLeader(members, leader) : null),
});
