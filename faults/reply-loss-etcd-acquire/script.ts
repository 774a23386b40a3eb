import type { ScriptFacts } from '../fault-facts.ts';

/**
 * `start reply-loss-etcd-acquire A`, then `A acquire`: the fault is armed before the acquire it aims at, and that
 * acquire failing (a client that does not retry its Txn) is the story, not the script diverging.
 */
export const script = { dropsReplyTo: 'acquire' } as const satisfies ScriptFacts;
