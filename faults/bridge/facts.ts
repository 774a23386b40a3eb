import { type FaultFacts } from '../fault-facts.ts';
import { serverPartitionEvidence } from '../evidence-parts.ts';

/** bridge: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'split the servers into two halves joined by one member that hears both, for --pause ms (3+ members; root, local backend)',
  family: 'network',
  did: 'cut the servers apart (one member bridges): {targets}',
  aim: null,
  hit: 'held a byte between the two halves of the servers',
  story: null,
  movesClocks: false,
  keepsServerLeases: false,
  colour: '#14b8a6',
  evidence: serverPartitionEvidence,
} as const satisfies FaultFacts;
