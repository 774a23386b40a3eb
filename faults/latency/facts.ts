import { num, strings } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { proxyBytes } from '../evidence-parts.ts';

/** latency: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "delay client↔server traffic through the harness's TCP proxies",
  family: 'network',
  did: 'delaying {targets}',
  aim: null,
  hit: 'delayed a byte between the clients and the servers',
  story: null,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#0369a1',
  evidence: { start: { durationMs: num, proxies: strings, oneWayMs: num }, end: proxyBytes },
} as const satisfies FaultFacts;
