import { num, bool, opt, strings, stringRecord, numberRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** reply-loss: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to the holder's next release after Redis acted on it (its own proxies; the connection then hangs until heal): the key is gone, the client hears nothing",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the release of {targets}',
  aim: null,
  hit: 'dropped the reply to a release Redis had carried out (committed but unacknowledged)',
  story: [
    { id: 'reply-dropped', says: "the holder's release reached Redis and its reply was dropped on the way back" },
    {
      id: 'committed',
      says: "Redis had acted on it: right after the drop the owner's key was gone (or held another owner's value) while its PTTL had time left",
    },
    {
      id: 'unacknowledged',
      says: 'the holder never heard it: its release failed, timed out, was still waiting, or reported the lock not released',
    },
  ],
  storyLimits: 'aims at a release only (not an acquire or a renewal), on --lock=redis and --lock=redlock',
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#db2777',
  evidence: {
    start: {
      ...section,
      process: num,
      ttlMs: num,
      /** The owner's value under the account's key on each Redis node that held it as the section began. */
      ownerValues: stringRecord,
      /** That key's PTTL on each of those nodes, in ms. */
      pttlMs: numberRecord,
    },
    end: {
      hit: bool,
      process: num,
      account: num,
      /** The nodes whose reply to the release was dropped. */
      droppedOn: strings,
      /** From the start of the first read of the keys to the end of the read after the drop, in ms: within the PTTL read first, a key gone is no expiry. */
      readsApartMs: opt(num),
      /** The value under the key right after the drop, by node; a node absent here held no key. */
      valuesAfter: stringRecord,
      /** Nodes that did not answer the read after the drop: nothing is concluded for them. */
      unanswered: strings,
      /** The release's invoke (its own time stamp, on the history's clock), when the holder sent one. */
      releaseTime: opt(num),
    },
  },
} as const satisfies FaultFacts;
