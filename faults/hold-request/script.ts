import type { ScriptFacts } from '../fault-facts.ts';

/**
 * `start hold-request A SET`, then `start A acquire`, `wait hold-request A` (the SET is in the hold), … `heal
 * hold-request A`: the step names the request to hold by its command, the third word. Armed before the step that
 * sends it, since the request it aims at may lie inside one client step (an acquire's second round trip).
 */
export const script = {
  request: { usage: 'hold-request names its client and the request to hold by its command: hold-request A SET' },
} as const satisfies ScriptFacts;
