import { type FaultFacts } from '../fault-facts.ts';
import { serverPartitionEvidence } from '../evidence-parts.ts';

/** majority-minority: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'split the servers (etcd, ZooKeeper) into a random majority and minority for --pause ms (root, local backend)',
  family: 'network',
  did: 'cut the servers apart: {targets}',
  aim: null,
  hit: 'held a byte between the majority and the minority of the servers',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#06b6d4',
  evidence: serverPartitionEvidence,
} as const satisfies FaultFacts;
