import { num, str, bool, numbers, orNull, opt } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { adapter } from '../evidence-parts.ts';

/** pause-node: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGSTOP a server: a Redis master, the etcd or ZooKeeper leader, or Postgres (all its processes)',
  family: 'pause',
  holderWas: 'paused past its lease',
  did: 'stopped {targets}',
  aim: null,
  hit: 'stopped a live server process',
  story: null,
  movesClocks: false,
  keepsServerLeases: true,
  // One of a Redlock's five independent masters SIGSTOPped for --pause (1.5 × TTL): the algorithm needs only a
  // majority, so a library that decides on the first quorum goes on, and one that waits for every master's reply
  // with the README's clients (no command timeout) holds every acquire, extend and release until it resumes.
  columns: [{ id: 'pause-master', place: 6, title: 'one Redlock master paused > TTL', fencing: false }],
  colour: '#ca8a04',
  evidence: {
    start: {
      durationMs: num,
      pids: numbers,
      stopped: bool,
      leader: bool,
      evidenceFrom: opt(str),
      adapter: opt(orNull(adapter)),
    },
    end: {},
  },
} as const satisfies FaultFacts;
