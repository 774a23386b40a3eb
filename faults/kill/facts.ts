import { num, bool, yes } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';

/** kill: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGKILL and restart (with data, after --restart-delay) an etcd or ZooKeeper node, the leader included; Postgres for --lock=postgres|none',
  family: 'crash',
  did: 'killed {targets}; it restarts with its data',
  aim: null,
  hit: 'killed a server that then rejoined',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#991b1b',
  evidence: {
    start: { downMs: num, leader: bool, withData: yes },
    end: { restartedInMs: num, rejoined: bool },
  },
} as const satisfies FaultFacts;
