import { type FaultFacts } from '../fault-facts.ts';
import { serverPartitionEvidence } from '../evidence-parts.ts';

/** isolate-leader: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'cut the current leader (etcd, ZooKeeper; Redis: the primary from its replica) off from the other servers for --pause ms; clients keep talking to every server (root, local backend)',
  family: 'network',
  did: 'cut the servers apart: {targets}',
  aim: null,
  hit: 'held a byte between the leader and the other servers',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#0f766e',
  evidence: serverPartitionEvidence,
} as const satisfies FaultFacts;
