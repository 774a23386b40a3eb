import type { ScriptFacts } from '../fault-facts.ts';

/** `kill A`. */
export const script = { verb: 'kill' } as const satisfies ScriptFacts;
