import type { ScriptFacts } from '../fault-facts.ts';
import { TAIL } from '../script-tail.ts';

/** `restart-empty A [on redis[0..2]]`: its step ends once the nodes are back, empty. */
export const script = {
  healsAtOnce: true,
  namesServers: true,
  story: ({ on }) => ['A acquire', 'A read', `restart-empty A${on}`, 'B acquire', 'B read', ...TAIL],
} as const satisfies ScriptFacts;
