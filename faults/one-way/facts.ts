import { num, opt, strings, stringRecord, numberRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';
import { script } from './script.ts';

/**
 * one-way: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts).
 *
 * Its story (research anchors-2026-12-05 §2.3, a prediction it measures): the link from the server back to the
 * holder goes silent while the holder's link to the server still works. Its watchdog's renewals reach Redis and
 * extend the key, and the holder hears none of it: it times out and counts the lock lost (or, with a longer command
 * timeout, goes on believing it holds with nothing to confirm it) while the server keeps the lease alive. A hit needs
 * the server's own word: reply bytes held on the holder's route and, read on Redis's own port during the fault, the
 * holder's value still under the key with its PTTL renewed after the fault began. Held bytes with no renewal read on
 * the server are a miss, never a hit.
 */
export const facts = {
  help: 'hold the replies to the holder (--watchdog) on its own proxies for --pause ms (a script: until its heal) while its requests flow: its renewals reach Redis and extend the key, the client hears nothing',
  family: 'network',
  losesReplies: true,
  did: 'holding the replies to {targets}',
  aim: null,
  hit: 'held the replies to a holder whose renewal Redis carried out meanwhile (its key extended, the client unanswered)',
  story: [
    {
      id: 'replies-held',
      says: "the holder's requests reached Redis while the replies to it were held on its own route",
    },
    {
      id: 'committed',
      says: "Redis carried out a renewal meanwhile: read during the fault, the holder's value was still under the key and its PTTL had grown past what the time since the first read left of it",
    },
    {
      id: 'unacknowledged',
      says: 'the holder heard nothing while its replies were held: the renewal in progress then failed, timed out, or was answered only after the heal',
    },
  ],
  script,
  storyLimits:
    'acts on locks served by Redis only, with --watchdog and a section longer than the watchdog period (--think ≥ TTL/3); replies are held and delivered at heal, never dropped (a Redis client that lost a reply would read the next one as its answer: a failure of the harness, not of the lock)',
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#b45309',
  evidence: {
    start: {
      ...section,
      process: num,
      ttlMs: num,
      /** The owner's value under the account's key on each Redis node that held it as the replies began to be held. */
      ownerValues: stringRecord,
      /** That key's PTTL on each of those nodes, in ms. */
      pttlMs: numberRecord,
    },
    end: {
      process: num,
      account: num,
      /** The nodes whose route held reply bytes, and how many bytes each held. */
      heldOn: strings,
      heldReplyBytes: numberRecord,
      /** When the first held reply was seen, on the history's clock (ns): the renewal in progress then is the aimed one. */
      heldAt: opt(num),
      /** From the first read of the keys to the read after the first held reply, in ms. */
      readsApartMs: opt(num),
      /** The value and PTTL under the key read after the first held reply, by node; a node absent held no key. */
      valuesAfter: stringRecord,
      pttlAfterMs: numberRecord,
      unanswered: strings,
    },
  },
} as const satisfies FaultFacts;
