import type { ScriptFacts } from '../fault-facts.ts';
import { TAIL } from '../script-tail.ts';

/** `clock +60s A [on redis[1]] … clock reset`. */
export const script = {
  namesServers: true,
  jump: {
    usage: "`clock` jumps the clocks of the servers holding a client's key: clock +60s A [on redis[1]], or clock reset",
  },
  story: ({ on, clockOffsetS }) => [
    'A acquire',
    'A read',
    `clock +${clockOffsetS ?? 60}s A${on}`,
    'B acquire',
    'B read',
    'clock reset',
    ...TAIL,
  ],
} as const satisfies ScriptFacts;
