import { script } from './script.ts';
import { num, str, bool, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';

/** failover: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'kill the Redis primary and promote its replica, losing unreplicated lock keys',
  /**
   * `replica-lag` is what it does: it holds the replication link for at least a TTL, lets a client acquire on the
   * primary, then kills the primary and promotes the replica that lacks the key (inject.ts).
   */
  aliases: ['replica-lag'],
  family: 'crash',
  aim: { struck: 'failed over to {nodes} (no lock key there)' },
  hit: 'promoted a replica without the lock key while a holder was inside its critical section',
  story: [
    {
      id: 'struck',
      says: 'the primary died with the holder inside its critical section, and the promoted replica lacked the key',
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  script,
  movesClocks: false,
  keepsServerLeases: false,
  scenarios: [
    // A section wider than the failover: the promoted replica serves the clients 150–250 ms after the primary's kill
    // here, so with the default 100 ms think the holder has always written before anyone else could be granted — the
    // double grant then reads the holder's write, and its story is not whole (faults/judging/server-story.ts).
    { id: 'failover', place: 1, title: 'failover (primary → replica)', fencing: false, minThinkTtlFraction: 0.4 },
    // The failover with a fence whose token comes from the same Redis (simple-redis-mutex's INCR counter): the
    // promoted replica's counter is as far behind as its keys. Only a Redis row with a token is measured here.
    { id: 'failover-fenced', place: 10, title: 'failover, --fencing', fencing: true },
  ],
  colour: '#7f1d1d',
  evidence: {
    start: {
      account: num,
      holder: str,
      replicationCutMs: num,
      keyOnPromoted: bool,
      restartDelayMs: num,
      aim: readAim,
    },
    end: {},
  },
} as const satisfies FaultFacts;
