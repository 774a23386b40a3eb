import { num, numberRecord, opt, str, strings, stringRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { script } from './script.ts';

/** reply-loss-acquire: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to a client's next acquire that Redis granted (its SET NX answered OK) on its own proxies; the connection then hangs until heal: the key is the client's, the client hears nothing",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the granted acquire of {targets}',
  aim: null,
  hit: 'dropped the reply to an acquire Redis had granted (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "a client's SET NX reached Redis, took the key, and its reply was dropped on the way back",
    },
    {
      id: 'committed',
      says: 'Redis had granted it: right after the drop the key held exactly the value that SET wrote',
    },
    {
      id: 'unacknowledged',
      says: 'the client never heard it: the acquire in progress at the drop failed, timed out, or never completed — or completed ok only on a request it resent over a new connection',
    },
  ],
  storyLimits:
    "aims at an acquire (SET NX answered OK) on --lock=redis and --lock=redlock: the client then holds nothing while Redis holds its key until the TTL (an orphaned lock: every acquire of that account waits it out). On another Redis lock (a plugin) at the client's next request, whatever it is — a script arms it before the acquire, so it is the acquire's first — read back by the key and values that request named; a library that resends it may be granted twice (a reentrant count of two)",
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#f472b6',
  evidence: {
    start: {
      slot: num,
      process: num,
      ttlMs: num,
    },
    end: {
      process: num,
      /** The nodes whose reply to the SET was dropped. */
      droppedOn: strings,
      /** A plugin's dropped request by its command (`EVAL`); absent: the built-ins' SET. */
      request: opt(str),
      /** The key the dropped SET wrote, and the value it wrote (the client's owner token). */
      key: opt(str),
      sent: opt(str),
      /** The value under that key right after the drop, by node; a node absent here held no key. */
      valuesAfter: stringRecord,
      /**
       * That key's PTTL read right after its value, by node holding it (ms; -1: it never expires): when the server
       * lets the orphaned key go (checkers/lost-replies/orphaned-lock.ts). Absent in runs from before it was read.
       */
      pttlAfterMs: opt(numberRecord),
      /**
       * A plugin's reentrant lock (a hash of hold counts by owner): the count under the field the request named, by
       * node, right after the drop. Absent for a string key.
       */
      holdCountsAfter: opt(numberRecord),
      /**
       * Connections the client opened to the dropped nodes between the drop and its acquire's completion: a client
       * that resent its request on one heard that one's answer, never the dropped reply. Absent: no completion seen.
       */
      newConnectionsBeforeAnswer: opt(num),
      /** Nodes that did not answer the read after the drop: nothing is concluded for them. */
      unanswered: strings,
      /** When the drop was seen, on the history's clock (ns): the acquire in progress then is the one aimed at. */
      droppedAt: opt(num),
    },
  },
} as const satisfies FaultFacts;
