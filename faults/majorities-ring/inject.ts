import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** A server↔server partition with Jepsen's `majorities-ring` grudge (nemesis/server-partition/grudge.ts). */
export const majoritiesRing = serverPartition('majorities-ring');
