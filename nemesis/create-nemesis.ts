import type { FaultExecutor } from './fault.ts';
import { EXECUTORS } from './fault-registry.ts';
import type { Nemesis, NemesisEnv } from './nemesis.ts';
import { ScheduledNemesis } from './scheduled-nemesis.ts';

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
