import type { ScriptFacts } from '../fault-facts.ts';

/** `reset A` in A's section: its step ends once A has dialled its servers again (or the wait for it ran out). */
export const script = {
  healsAtOnce: true,
  story: () => ['A acquire', 'A read', 'reset A', 'A write', 'A release'],
} as const satisfies ScriptFacts;
