import { bool, numbers, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** kill-session: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'end the Postgres session holding the advisory lock of the client inside its critical section (pg_terminate_backend): the lock is freed at once, the holder runs on (a lock that lives in Postgres: advisory-lock)',
  family: 'crash',
  aim: { struck: 'ended the lock session of {process}' },
  hit: "ended the session holding a holder's advisory lock inside its critical section",
  story: [
    {
      id: 'struck',
      says: "the session holding the holder's advisory lock was ended while the holder was inside its critical section",
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  storyLimits:
    "a lock library that dies with its session (its driver's unhandled error ends the holder's process before it writes) shows it as a write skipped with lock-lost, recorded by the client as the library ends it",
  movesClocks: false,
  keepsServerLeases: true,
  // The Postgres session that holds the holder's advisory lock ended by the server (pg_terminate_backend) while the
  // holder is inside its section: the lock is freed at once, and the holder is not told unless its driver says so.
  columns: [{ id: 'kill-session', place: 7, title: "holder's lock session killed", fencing: false }],
  colour: '#9f1239',
  evidence: {
    start: { ...section, backends: numbers, ended: bool, aim: readAim },
    end: {},
  },
} as const satisfies FaultFacts;
