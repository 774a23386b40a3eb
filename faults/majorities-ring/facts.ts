import { type FaultFacts } from '../fault-facts.ts';
import { serverPartitionEvidence } from '../evidence-parts.ts';

/** majorities-ring: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'every server hears a majority, no two the same one, for --pause ms (5 members: --etcd-nodes=5 / --zk-nodes=5; root, local backend)',
  family: 'network',
  did: 'cut the servers into a ring: {targets}',
  aim: null,
  hit: 'held a byte between servers across the ring',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#155e75',
  evidence: serverPartitionEvidence,
} as const satisfies FaultFacts;
