import { num, opt, str, strings, stringRecord } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { script } from './script.ts';

/** reply-loss-pg-lock: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "drop the reply to a client's next granted pg_advisory_lock on its own lock-session proxy; the connection then hangs until heal: Postgres holds the lock for the client's session, the client hears nothing",
  family: 'network',
  losesReplies: true,
  did: 'dropping the reply to the granted advisory lock of {targets}',
  aim: null,
  hit: 'dropped the reply to an advisory lock Postgres had granted (committed but unacknowledged)',
  story: [
    {
      id: 'reply-dropped',
      says: "a client's SELECT pg_advisory_lock(…) reached Postgres, was granted, and its reply was dropped on the way back",
    },
    {
      id: 'committed',
      says: "Postgres had granted it: right after the drop pg_locks showed that advisory key granted to a backend of the client's lock session",
    },
    {
      id: 'unacknowledged',
      says: 'the client never heard it: the acquire in progress at the drop failed, timed out, or never completed',
    },
  ],
  storyLimits:
    "aims at an acquire (pg_advisory_lock, granted) only, on --lock=advisory-lock; the lock has no lease, so the server holds it for the client's session until that session ends — here when the heal resets the black-holed connection, on a real network when TCP gives the dead path up",
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#c026d3',
  evidence: {
    start: {
      slot: num,
      process: num,
      /** The client's lock sessions' application_name (workloads/lock-session-name.ts): how the server is read. */
      session: str,
      /** Why the lock has no TTL to bound an orphan (its row's `noLease`). */
      noLease: opt(str),
    },
    end: {
      process: num,
      /** The routes whose reply was dropped: the client's lock-session route. */
      droppedOn: strings,
      /** The dropped request's SQL, and the advisory key it names (`k1,k2`). */
      statement: opt(str),
      key: opt(str),
      /** Right after the drop: the client's lock sessions by backend pid, each with the advisory keys granted to it. */
      after: stringRecord,
      /** Why Postgres could not be read after the drop: nothing is concluded then. */
      readError: opt(str),
      /** When the drop was seen, on the history's clock (ns): the acquire in progress then is the one aimed at. */
      droppedAt: opt(num),
    },
  },
} as const satisfies FaultFacts;
