import { HarnessError } from '../harness/errors.ts';
import type { FaultName } from './fault-names.ts';
import type { Nemesis, NemesisEnv } from './nemesis.ts';

/** The faults that matter to each strategy, used when --nemesis isn't given. */
export function defaultFaults(_lock: string): FaultName[] {
  return [];
}

export function createNemesis(env: NemesisEnv): Nemesis {
  if (env.faults.length) throw new HarnessError('bad-arguments', `faults not available yet: ${env.faults.join(', ')}`);
  return { async setup() {}, async run() {}, async heal() {} };
}
