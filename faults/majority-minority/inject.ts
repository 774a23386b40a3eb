import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** A server↔server partition with Jepsen's `majority-minority` grudge (nemesis/server-partition/grudge.ts). */
export const majorityMinority = serverPartition('majority-minority');
