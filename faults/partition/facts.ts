import { num, strings } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { proxyBytes } from '../evidence-parts.ts';

/** partition: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "cut client↔server traffic through the harness's TCP proxies (connections hang)",
  family: 'network',
  did: 'cut {targets}',
  aim: null,
  hit: 'held a byte between the clients and the servers',
  story: null,
  movesClocks: false,
  keepsServerLeases: true,
  everyLockMustSurvive: true,
  colour: '#0ea5e9',
  evidence: { start: { durationMs: num, proxies: strings }, end: proxyBytes },
} as const satisfies FaultFacts;
