import { num, opt, str, strings, stringRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';

/** reply-loss-create: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to a client's next ZooKeeper create (its lock node) on its own proxies and reset that connection: the node exists, the client hears only a connection loss and must find it by its prefix",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the create of {targets}',
  aim: null,
  hit: 'dropped the reply to a create ZooKeeper had carried out (committed but unacknowledged), and saw how the recipe recovered',
  story: [
    {
      id: 'reply-dropped',
      says: "a client's create reached ZooKeeper and its reply was dropped on the way back, the connection then reset: the client heard only a connection loss",
    },
    {
      id: 'committed',
      says: 'ZooKeeper had made the node: right after the drop the lock directory held a child named by the path that create asked for, ephemeral to a live session',
    },
    {
      id: 'recovered',
      says: 'the recipe found that node again rather than making a second: the acquire in progress at the drop ended ok, and as it did exactly one child carried its prefix, the one the dropped create made',
    },
  ],
  storyLimits:
    "aims at a create only, on --lock=zookeeper (whose recipe names its nodes with a per-client prefix) and --lock=curator (its create2, the node named `_c_<guid>-lock-` by its protection mode); a create of the lock's directory (mkdirp, once per account and session) is a create too, and a shot that hits one is a miss, as is one whose create found no directory yet (Curator's first, answered NoNode, before it makes the parents)",
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#be185d',
  evidence: {
    start: {
      slot: num,
      process: num,
      ttlMs: num,
    },
    end: {
      process: num,
      /** The servers (their client's own proxies) whose reply to the create was dropped. */
      droppedOn: strings,
      /** The path the dropped create asked for: a sequential node's, the server appends its number. */
      path: opt(str),
      /** Right after the drop: the lock directory's children named by that path, each with its ephemeral owner (hex). */
      after: stringRecord,
      /** The same, read as the acquire in progress at the drop was granted: absent when it was not. */
      atGrant: opt(stringRecord),
      /** Why the directory could not be read (the server did not answer): nothing is concluded then. */
      readError: opt(str),
      /** When the reply was dropped, on the history's clock (ns): the acquire in progress then is the one aimed at. */
      droppedAt: opt(num),
    },
  },
} as const satisfies FaultFacts;
