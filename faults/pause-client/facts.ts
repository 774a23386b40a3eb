import { num, bool } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { lockStop } from '../evidence-parts.ts';

/** pause-client: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGSTOP a random client process',
  family: 'pause',
  holderWas: 'paused past its lease',
  did: 'stopped {targets}',
  aim: null,
  hit: 'stopped a live client',
  story: null,
  movesClocks: false,
  keepsServerLeases: true,
  everyLockMustSurvive: true,
  colour: '#92400e',
  evidence: {
    start: { ...lockStop, durationMs: num, slot: num, pid: num, stopped: bool },
    end: {},
  },
} as const satisfies FaultFacts;
