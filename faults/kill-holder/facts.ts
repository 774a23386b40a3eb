import { script } from './script.ts';
import { num, literal, readAim } from '../evidence-fields.ts';
import { type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** kill-holder: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGKILL the client inside its critical section: its lock must be freed by expiry alone (liveness: how long it kept the others out)',
  family: 'crash',
  locksOut: true,
  aim: { struck: 'killed {process}' },
  hit: 'killed a holder inside its critical section',
  story: [
    { id: 'killed', says: 'the holder was killed inside its critical section' },
    { id: 'died', says: 'its client exit is in the history' },
    { id: 'freed', says: 'another client then acquired the same account: the lock was freed by expiry' },
  ],
  storyLimits:
    'a lock that is never freed after its holder died leaves no story to complete: the runs end unknown, and the liveness checker shows the stall',
  script,
  movesClocks: false,
  keepsServerLeases: true,
  colour: '#f43f5e',
  evidence: {
    start: { ...section, ttlMs: num, signal: literal('SIGKILL'), aim: readAim },
    end: {},
  },
} as const satisfies FaultFacts;
