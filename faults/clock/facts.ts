import { script } from './script.ts';
import { num, str, strings, opt, numberRecord, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';

/** clock: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "jump the wall clock of the lock's Redis node(s) forward (LD_PRELOAD shim; etcd ignores it)",
  family: 'clock',
  aim: { struck: 'jumped the clock of {nodes}' },
  hit: 'jumped the clock of a node holding the lock while its holder was inside its critical section',
  story: [
    {
      id: 'struck',
      says: 'the clocks of the nodes holding the key jumped while the holder was inside its critical section',
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  script,
  movesClocks: true,
  keepsServerLeases: false,
  columns: [{ id: 'clock', place: 3, title: 'clock jump on Redis', fencing: false }],
  colour: '#6366f1',
  evidence: {
    start: {
      offsetMs: num,
      offsets: numberRecord,
      maxMs: num,
      keys: opt(strings),
      holder: opt(str),
      holding: opt(strings),
      aim: readAim,
    },
    end: { offsets: numberRecord },
  },
} as const satisfies FaultFacts;
