import { num, opt, str, strings } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { script } from './script.ts';

/**
 * reply-loss-etcd-acquire: what it is and what it records (its injection is inject.ts beside this file, its judge
 * judge.ts).
 */
export const facts = {
  help: "drop the answer to a client's next etcd acquire that put the lock key (its Txn answered succeeded) on its own proxies and reset that connection: the key is on the client's lease, the client hears only a connection loss",
  family: 'network',
  losesReplies: true,
  did: 'dropping the answer to the granted acquire of {targets}',
  aim: null,
  hit: 'dropped the answer to an acquire etcd had granted (committed but unacknowledged), and saw how the client settled it',
  story: [
    {
      id: 'reply-dropped',
      says: "a client's acquire Txn reached etcd and put the lock key; its answer (succeeded) was dropped on the way back and the connection reset: the client heard only a connection loss",
    },
    {
      id: 'committed',
      says: 'etcd had granted it: read on a member after the drop (not through any proxy), the key the Txn named held the value it wrote, on the lease it named, at the revision its dropped answer gave',
    },
    {
      id: 'settled',
      says: "the acquire in progress at the drop completed: granted holding that very key (the same create revision: a retry found the client's own key), or not granted while the key stays on the client's lease",
    },
  ],
  storyLimits:
    'aims at an acquire whose Txn puts the lock key (gRPC `/etcdserverpb.KV/Txn` with a put in its success branch) on --lock=etcd and --lock=etcd-go; the connection is reset after the drop (HTTP/2 cannot lose one frame quietly: nemesis/proxy/call-aim.ts), so the client sees a connection loss, never a silent hang',
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#e879f9',
  evidence: {
    start: {
      slot: num,
      process: num,
      ttlMs: num,
    },
    end: {
      process: num,
      /** The member (its client's own proxy) whose answer to the Txn was dropped. */
      droppedOn: strings,
      /** What the dropped Txn put: the key, the value (the client's owner token) and the lease it attached the key to. */
      key: opt(str),
      sent: opt(str),
      lease: opt(str),
      /**
       * The revision the Txn committed at (its dropped answer's header), and the key as etcd held it at that revision,
       * read after the drop: a committed put's own record, which a client that gives up and revokes its lease at once
       * (Go's session) cannot take back before the read.
       */
      committedAt: opt(str),
      valueAtCommit: opt(str),
      leaseAtCommit: opt(str),
      /** The key as etcd held it right after the drop: its value, lease and create revision (absent: no such key). */
      valueAfter: opt(str),
      leaseAfter: opt(str),
      revisionAfter: opt(str),
      /** Why the key could not be read (the member did not answer): nothing is concluded then. */
      readError: opt(str),
      /** When the answer was dropped, on the history's clock (ns): the acquire in progress then is the one aimed at. */
      droppedAt: opt(num),
    },
  },
} as const satisfies FaultFacts;
