import { num, opt, str, strings } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/**
 * reply-loss-etcd-renew: what it is and what it records (its injection is inject.ts beside this file, its judge
 * judge.ts).
 */
export const facts = {
  help: "drop the answer to the holder's next etcd lease keep-alive that renewed its lease (its own proxies), then reset that connection: the lease is longer, the client hears only a connection loss (needs --ttl=4000 or more)",
  family: 'network',
  losesReplies: true,
  did: 'dropping the answer to the lease keep-alive of {targets}',
  aim: null,
  hit: 'dropped the answer to a keep-alive etcd had carried out (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "the holder's lease keep-alive reached etcd, which renewed the lease and answered alive with its TTL; that answer was dropped on the way back",
    },
    {
      id: 'committed',
      says: "etcd had renewed it: right after the drop LeaseTimeToLive on a member showed the lease's remaining TTL back at its granted TTL (within etcd's whole-second rounding), which no lease last renewed a keep-alive period (TTL/3) earlier can show — read within 100 ms of the drop, before the client's library reopens its keep-alive stream (etcd3 waits 100 ms after a failed stream)",
    },
    {
      id: 'unacknowledged',
      says: "the holder's client heard nothing of it: the proxy dropped every byte from the answer's first frame on and reset the connection, so its keep-alive stream failed",
    },
  ],
  storyLimits:
    "aims at the keep-alive stream (gRPC `/etcdserverpb.Lease/LeaseKeepAlive`) of the next section's holder on --lock=etcd, whose lease is renewed by the client library every TTL/3 outside the history; needs --ttl ≥ 4000 ms, so that a keep-alive period exceeds etcd's one-second TTL resolution",
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#86198f',
  evidence: {
    start: {
      ...section,
      process: num,
      ttlMs: num,
    },
    end: {
      process: num,
      account: num,
      /** The member (its client's own proxy) whose answer to the keep-alive was dropped. */
      droppedOn: strings,
      /** The lease the keep-alive renewed, and what etcd's dropped answer said (`alive TTL <s>`). */
      lease: opt(str),
      answer: opt(str),
      /** LeaseTimeToLive right after the drop: remaining and granted TTL (s); absent: not read. */
      ttlAfterS: opt(num),
      grantedTtlS: opt(num),
      /** From the drop to that read's answer, in ms: a read before the client could renew again. */
      readAfterMs: opt(num),
      readError: opt(str),
      /** The proxy's counts across the drop: bytes dropped on their way to the client, connections reset. */
      droppedBytes: opt(num),
      resets: opt(num),
    },
  },
} as const satisfies FaultFacts;
