import { bool, num, opt, str, strings } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/**
 * reply-loss-etcd-release: what it is and what it records (its injection is inject.ts beside this file, its judge
 * judge.ts).
 */
export const facts = {
  help: "drop the answer to the holder's next etcd release that deleted its key (its Txn answered succeeded) on its own proxies and reset that connection: the key is gone, the client hears only a connection loss",
  family: 'network',
  losesReplies: true,
  did: 'dropping the answer to the release of {targets}',
  aim: null,
  hit: 'dropped the answer to a release etcd had carried out (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "the holder's release Txn reached etcd and deleted its key; its answer (succeeded) was dropped on the way back and the connection reset",
    },
    {
      id: 'committed',
      says: "etcd had carried it out: right after the drop the holder's incarnation of the key (the create revision its Txn compared on) was gone — no key, or a later holder's (read on a member, not through any proxy)",
    },
    {
      id: 'unacknowledged',
      says: 'the holder never heard it: its release failed, timed out, or reported the lock not released (a retried Txn finds the key gone)',
    },
  ],
  storyLimits:
    "aims at a release whose Txn deletes the key if its create revision is still the holder's (gRPC `/etcdserverpb.KV/Txn` with a delete in its success branch), on --lock=etcd; the connection is reset after the drop (nemesis/proxy/call-aim.ts says why)",
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#701a75',
  evidence: {
    start: {
      ...section,
      process: num,
      ttlMs: num,
    },
    end: {
      process: num,
      account: num,
      /** The member (its client's own proxy) whose answer to the release was dropped. */
      droppedOn: strings,
      /** The key the dropped Txn deleted, and the create revision it compared on: the holder's incarnation. */
      key: opt(str),
      revision: opt(str),
      /** The key's create revision right after the drop; absent: etcd held no such key. */
      revisionAfter: opt(str),
      /** Whether the key was read after the drop; why not, when it could not be (nothing is concluded then). */
      read: opt(bool),
      readError: opt(str),
      /** The release's invoke (its own time stamp, on the history's clock), when the holder sent one. */
      releaseTime: opt(num),
    },
  },
} as const satisfies FaultFacts;
