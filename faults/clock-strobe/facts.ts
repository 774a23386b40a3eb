import { num, yes, strings, numberRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';

/** clock-strobe: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "oscillate the wall clocks of the lock's servers and of every client between +offset and real time",
  family: 'clock',
  did: 'swinging the clocks of {targets}',
  aim: null,
  hit: 'moved a clock the lock depends on',
  story: null,
  movesClocks: true,
  keepsServerLeases: false,
  colour: '#312e81',
  evidence: {
    start: {
      offsetMs: num,
      periodMs: num,
      startsHigh: yes,
      durationMs: num,
      /** The lock servers whose clocks the shim does move. */
      moved: strings,
      offsets: numberRecord,
    },
    end: { offsets: numberRecord },
  },
} as const satisfies FaultFacts;
