import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** A server↔server partition with Jepsen's `isolate-leader` grudge (nemesis/server-partition/grudge.ts). */
export const isolateLeader = serverPartition('isolate-leader');
