import { num, opt, str, strings, stringRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** reply-loss-pg-unlock: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to the holder's next pg_advisory_unlock after Postgres carried it out (its own lock-session proxy; the connection then hangs until heal): the lock is free, the client hears nothing",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the advisory unlock of {targets}',
  aim: null,
  hit: 'dropped the reply to an advisory unlock Postgres had carried out (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "the holder's SELECT pg_advisory_unlock(…) reached Postgres and its reply was dropped on the way back",
    },
    {
      id: 'committed',
      says: 'Postgres had carried it out: the backend that held the advisory key as the section began was still there right after the drop, and no longer held it',
    },
    {
      id: 'unacknowledged',
      says: 'the holder never heard it: its release failed, timed out or was still waiting',
    },
  ],
  storyLimits:
    'aims at a release (pg_advisory_unlock) only, on --lock=advisory-lock; a backend gone by the read after the drop tells nothing (its session took the lock with it), so such a shot is a miss',
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#a21caf',
  evidence: {
    start: {
      ...section,
      process: num,
      /** The client's lock sessions' application_name (workloads/lock-session-name.ts): how the server is read. */
      session: str,
      /** As the section began: the client's lock sessions by backend pid, each with the advisory keys granted to it. */
      before: stringRecord,
      /** Why Postgres could not be read then. */
      beforeError: opt(str),
    },
    end: {
      process: num,
      account: num,
      /** The routes whose reply was dropped: the client's lock-session route. */
      droppedOn: strings,
      /** The dropped request's SQL, and the advisory key it names (`k1,k2`). */
      statement: opt(str),
      key: opt(str),
      /** Right after the drop, the same read as `before`: a pid absent is a session that no longer exists. */
      after: stringRecord,
      readError: opt(str),
      /** The release's invoke (its own time stamp, on the history's clock), when the holder sent one. */
      releaseTime: opt(num),
    },
  },
} as const satisfies FaultFacts;
