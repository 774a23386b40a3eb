import { serverPartition } from '../../nemesis/server-partition/partition-fault.ts';

/** A server↔server partition with Jepsen's `bridge` grudge (nemesis/server-partition/grudge.ts). */
export const bridge = serverPartition('bridge');
