import type { ScriptFacts } from '../fault-facts.ts';

/**
 * `start reply-loss-pg-lock A`, then `A acquire`: the fault is armed before the acquire it aims at, and that acquire
 * failing (its reply dropped, the client never hears its grant) is the story, not the script diverging.
 */
export const script = { dropsReplyTo: 'acquire' } as const satisfies ScriptFacts;
