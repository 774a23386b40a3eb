import type { ScriptFacts } from '../fault-facts.ts';

/**
 * `one-way A` in A's section, `wait A renew` (its watchdog's renewal reaches Redis, its reply is held: the renewal
 * times out), `heal one-way A`: the replies delivered late, A's write then refused by its own watchdog's verdict.
 */
export const script = {
  story: () => ['A acquire', 'A read', 'one-way A', 'wait A renew', 'heal one-way A', 'A write', 'A release'],
} as const satisfies ScriptFacts;
