import { num, strings, numberRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';
import { script } from './script.ts';

/**
 * reset: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts).
 *
 * Its story: the visible failure, in contrast to partition's silent stall. As the holder begins its critical section
 * its own connections to the lock's Redis nodes are reset (RST, Toxiproxy's `reset_peer`): the client is told at
 * once that its link is gone, and must notice — dial again, or fail the request it had in flight — before it can
 * renew or release. A hit is a reset inside the section (the proxy counted it on the holder's route) that the client
 * was seen to notice: a new connection on that route, or its next renewal or release failing.
 */
export const facts = {
  help: "reset (RST) the holder's own connections to the lock's Redis nodes as it begins its critical section: the visible failure, where partition is a silent stall",
  family: 'network',
  losesReplies: true,
  did: 'resetting the connections of {targets}',
  aim: null,
  hit: "reset a holder's connections inside its critical section, and saw the client notice",
  story: [
    {
      id: 'connection-reset',
      says: "the holder's own connections to Redis were reset (RST) after its read, before it wrote or released",
    },
    {
      id: 'reset-seen',
      says: 'the holder noticed: it dialled Redis again on its route, or its next renewal or release failed',
    },
  ],
  storyLimits:
    "acts on locks served by Redis only; a client whose library reconnects only when it next sends is seen by that request's failure, or not at all if it succeeds on the new connection",
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#0891b2',
  evidence: {
    start: {
      ...section,
      process: num,
      /** The nodes whose route reset at least one connection of the holder, and how many each reset. */
      resetOn: strings,
      resets: numberRecord,
      /** When the connections were reset, on the history's clock (ns). */
      resetAt: num,
    },
    end: {
      process: num,
      /** The nodes the holder dialled again after the reset (a new connection on its route), before the wait ran out. */
      reconnectedOn: strings,
      /** How long the heal waited for those connections, in ms. */
      waitedMs: num,
    },
  },
} as const satisfies FaultFacts;
