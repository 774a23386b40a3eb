import type { FaultExecutor } from './fault.ts';
import type { FaultName } from '../history/fault-names.ts';
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
import type { Nemesis, NemesisEnv } from './nemesis.ts';
import { ScheduledNemesis } from './scheduled-nemesis.ts';

/** One executor per name of the CLI's fault list (fault-names.ts). */
export const EXECUTORS: Record<FaultName, FaultExecutor> = {
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
};

/**
 * The run's nemesis for `env.faults`. A fault that can't apply to this run (restart-empty without Redis,
 * failover without a primary/replica pair, …) is left out with a line saying why, rather than failing the run:
 * `--nemesis=<every fault>` against one lock must measure what does apply.
 */
export function createNemesis(env: NemesisEnv): Nemesis {
  const executors: FaultExecutor[] = [];
  const skipped: Record<string, string> = {};
  for (const name of env.faults) {
    const executor = EXECUTORS[name];
    const why = executor.unavailable(env);
    if (why) {
      env.log(`fencepost: nemesis: ${name} does not apply to this run (${why}); skipped`);
      skipped[name] = why;
    } else executors.push(executor);
  }
  return new ScheduledNemesis(env, executors, skipped);
}
