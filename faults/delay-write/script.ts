import type { ScriptFacts } from '../fault-facts.ts';

/** `hold A … deliver A`; its story waits a TTL after A's write went into the hold. */
export const script = {
  verb: 'hold',
  healVerb: 'deliver',
  leaseFrom: 'held-write',
  story: () => [
    'A acquire',
    'A read',
    'hold A',
    'start A write',
    'wait lease-expired A',
    'B acquire',
    'B read',
    'B write',
    'B release',
    'deliver A',
    'wait A write',
  ],
} as const satisfies ScriptFacts;
