import { script } from './script.ts';
import { num, bool, yes, opt, numberRecord } from '../evidence-fields.ts';
import { OTHER_WROTE, HOLDER_WROTE, type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** delay-write: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'hold everything the client inside its critical section sends (its write included) in flight for --pause ms, then deliver it: the write arrives after the lease ran out',
  family: 'network',
  did: 'holding everything sent by {targets}',
  aim: null,
  hit: "held the holder's write in flight for a TTL",
  story: [
    { id: 'write-held', says: "the holder's write was sent into the hold" },
    { id: 'lease-expired', says: 'it was held for at least the TTL: the lease ran out meanwhile' },
    OTHER_WROTE,
    { id: 'delivered', says: 'the held bytes were delivered with the clients still running' },
    { ...HOLDER_WROTE, says: 'the held write then arrived and committed' },
  ],
  script,
  movesClocks: false,
  keepsServerLeases: true,
  // Grey, as before the catalogue: the report's old name patterns matched none of its name.
  scenarios: [
    { id: 'delay-write', place: 8, title: 'delayed write', fencing: false },
    { id: 'delay-write-fenced', place: 9, title: 'delayed write, --fencing', fencing: true },
  ],
  colour: '#65a30d',
  evidence: {
    start: {
      ...section,
      maxMs: num,
      /** When the hold began, on the history's clock. */
      heldAtTime: num,
      ttlMs: num,
      process: num,
    },
    end: {
      hit: bool,
      process: num,
      account: num,
      heldMs: num,
      heldBytes: numberRecord,
      cutShort: opt(yes),
      writeTime: opt(num),
      writeIndex: opt(num),
      writeHeldMs: opt(num),
    },
  },
} as const satisfies FaultFacts;
