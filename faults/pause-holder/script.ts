import type { ScriptFacts } from '../fault-facts.ts';
import { TAIL } from '../script-tail.ts';

/** `pause A … resume A`; its story waits a TTL after the strike. */
export const script = {
  verb: 'pause',
  healVerb: 'resume',
  leaseFrom: 'strike',
  story: ({ watchdog }) =>
    watchdog
      ? [
          'A acquire',
          'A read',
          'pause A',
          'wait lease-expired A',
          'B acquire',
          'B read',
          'resume A',
          'wait A renew',
          ...TAIL,
        ]
      : [
          'A acquire',
          'A read',
          'pause A',
          'wait lease-expired A',
          'B acquire',
          'B read',
          'B write',
          'B release',
          'resume A',
          'A write',
          'A release',
        ],
} as const satisfies ScriptFacts;
