import { num, opt, strings, stringRecord, numberRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** reply-loss-renew: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to the holder's next renewal (--watchdog) after Redis extended the key (its own proxies; the connection then hangs until heal): the lease is longer, the client hears nothing",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the renewal of {targets}',
  aim: null,
  hit: 'dropped the reply to a renewal Redis had carried out (committed but unacknowledged)',
  story: [
    { id: 'reply-dropped', says: "the holder's renewal reached Redis and its reply was dropped on the way back" },
    {
      id: 'committed',
      says: "Redis had extended it: right after the drop the owner's key was still the owner's and its PTTL had grown past what the time since the first read left of it",
    },
    {
      id: 'unacknowledged',
      says: 'the holder never heard it: the renewal in progress at the drop failed or timed out (its watchdog then counts the lease lost)',
    },
  ],
  storyLimits:
    'aims at a renewal (a script that extends: PEXPIRE) only, on --lock=redis and --lock=redlock with --watchdog and a section longer than the watchdog period (--think ≥ TTL/3)',
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#9d174d',
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
      process: num,
      account: num,
      /** The nodes whose reply to the renewal was dropped. */
      droppedOn: strings,
      /** From the first read of the keys to the read right after the drop, in ms. */
      readsApartMs: opt(num),
      /** The value and PTTL under the key right after the drop, by node; a node absent held no key. */
      valuesAfter: stringRecord,
      pttlAfterMs: numberRecord,
      unanswered: strings,
      /** When the drop was seen, on the history's clock (ns): the renewal in progress then is the one aimed at. */
      droppedAt: opt(num),
    },
  },
} as const satisfies FaultFacts;
