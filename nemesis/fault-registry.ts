import type { FaultExecutor } from './fault.ts';
import type { FaultName } from '../history/fault-names.ts';
import type { FaultTiming } from './fault-needs.ts';
import { clockStrobe } from './faults/clock-strobe.ts';
import { clock } from './faults/clock.ts';
import { delayWrite } from './faults/delay-write.ts';
import { failover } from './faults/failover.ts';
import { kill } from './faults/kill.ts';
import { latency } from './faults/latency.ts';
import { partition } from './faults/partition.ts';
import { pauseClient } from './faults/pause-client.ts';
import { pauseHolder } from './faults/pause-holder.ts';
import { pauseNode } from './faults/pause-node.ts';
import { restartEmpty } from './faults/restart-empty.ts';
import {
  bridgeFault,
  isolateLeaderFault,
  majoritiesRingFault,
  majorityMinorityFault,
} from './faults/server-partition.ts';

/** One executor per name of the CLI's fault list (fault-names.ts). */
export const EXECUTORS: Readonly<Record<FaultName, FaultExecutor>> = {
  'pause-holder': pauseHolder,
  'pause-client': pauseClient,
  'pause-node': pauseNode,
  'restart-empty': restartEmpty,
  kill,
  clock,
  'clock-strobe': clockStrobe,
  failover,
  partition,
  latency,
  'delay-write': delayWrite,
  'isolate-leader': isolateLeaderFault,
  'majority-minority': majorityMinorityFault,
  bridge: bridgeFault,
  'majorities-ring': majoritiesRingFault,
};

/** What a run with `faults` must prepare: the union of the faults' own declarations (fault-needs.ts). */
export interface RunNeeds {
  clockShim: boolean;
  failoverPair: boolean;
  ownClientRoutes: boolean;
  clientProxies: boolean;
  /** Every server in a cgroup of its own and the run's nftables table (server↔server partitions). */
  serverNet: boolean;
  /** The longest of the faults' minimum useful runs, in ms; 0 when none declares one. */
  minRunMs(timing: FaultTiming): number;
}

export function runNeeds(faults: readonly FaultName[]): RunNeeds {
  const needs = faults.map((f) => EXECUTORS[f].needs);
  return {
    clockShim: needs.some((n) => n.clockShim === true),
    failoverPair: needs.some((n) => n.failoverPair === true),
    ownClientRoutes: needs.some((n) => n.ownClientRoutes === true),
    clientProxies: needs.some((n) => n.clientProxies === true),
    serverNet: needs.some((n) => n.serverNet === true),
    minRunMs: (timing) => Math.max(0, ...needs.map((n) => n.minRunMs?.(timing) ?? 0)),
  };
}

/**
 * Whether a fault recorded in a history (any name, also one from an older or newer fencepost) moves wall clocks:
 * the report draws its offsets.
 */
export function movesClocks(f: string): boolean {
  return Object.hasOwn(EXECUTORS, f) && EXECUTORS[f as FaultName].needs.clockShim === true;
}
