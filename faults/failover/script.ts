import type { ScriptFacts } from '../fault-facts.ts';
import { TAIL } from '../script-tail.ts';

/** `start failover A` before A acquires (it cuts replication first) `… heal failover`. */
export const script = {
  story: () => [
    'start failover A',
    'A acquire',
    'A read',
    'wait failover A',
    'B acquire',
    'B read',
    ...TAIL,
    'heal failover',
  ],
} as const satisfies ScriptFacts;
