import { num, opt, str, strings, stringRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** reply-loss-delete: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to the holder's next ZooKeeper delete (its lock node) after the server carried it out, on its own proxies; the connection then hangs until heal: the node is gone, the client hears nothing (CURATOR-678's release)",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the delete of {targets}',
  aim: null,
  hit: 'dropped the reply to a delete ZooKeeper had carried out (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "the holder's delete of its lock node reached ZooKeeper and its reply was dropped on the way back",
    },
    {
      id: 'committed',
      says: "ZooKeeper had carried it out: the node, the holder's as the section began, was gone right after the drop — read on the server that answered, well within the session timeout, so not its session's end",
    },
    {
      id: 'unacknowledged',
      says: 'the holder never heard it: its release failed, timed out, was still waiting, or reported the lock not released',
    },
  ],
  storyLimits:
    "aims at a release (the delete of the lock node) only, on --lock=zookeeper (whose recipe names its nodes with a per-client prefix, so the holder's node is found as the section begins)",
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#881337',
  evidence: {
    start: {
      ...section,
      process: num,
      ttlMs: num,
      /** As the section began: the lock directory's children carrying the client's prefix, each with its ephemeral owner (hex). */
      before: stringRecord,
      /** Why the directory could not be read then. */
      beforeError: opt(str),
    },
    end: {
      process: num,
      account: num,
      /** The servers (their client's own proxies) whose reply to the delete was dropped. */
      droppedOn: strings,
      /** The node the dropped delete named. */
      path: opt(str),
      /** Right after the drop, the same read as `before`, on the server that answered the delete. */
      after: stringRecord,
      readError: opt(str),
      /** From the start of the first read to the end of the read after the drop, in ms: within the session timeout, a node gone is no expiry. */
      readsApartMs: opt(num),
      /** The release's invoke (its own time stamp, on the history's clock), when the holder sent one. */
      releaseTime: opt(num),
    },
  },
} as const satisfies FaultFacts;
