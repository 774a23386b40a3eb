import { script } from './script.ts';
import { num, bool, yes, orNull, opt, readAim } from '../evidence-fields.ts';
import { OTHER_WROTE, HOLDER_WROTE, type FaultFacts } from '../fault-facts.ts';
import { section, lockStop } from '../evidence-parts.ts';

/** pause-holder: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'SIGSTOP the client inside its critical section (after its read, before its write) for longer than the TTL',
  family: 'pause',
  holderWas: 'paused past its lease',
  locksOut: true,
  aim: { struck: 'paused {process}' },
  hit: 'paused a holder inside its critical section for a TTL',
  story: [
    { id: 'stopped', says: 'the holder was stopped inside its critical section (after its read, before its write)' },
    { id: 'lease-expired', says: 'it stayed stopped for at least the TTL: its lease ran out' },
    OTHER_WROTE,
    { id: 'resumed', says: 'the holder was resumed with the clients still running' },
    HOLDER_WROTE,
  ],
  storyLimits:
    'a lock whose lease never runs out keeps every other client out of a stopped holder: the story cannot complete, and its runs end unknown (kill-holder and the liveness figures show what such a lock costs instead)',
  script,
  movesClocks: false,
  keepsServerLeases: true,
  everyLockMustSurvive: true,
  columns: [
    { id: 'pause-holder', place: 1, title: 'holder paused > TTL', fencing: false },
    { id: 'fencing', place: 4, title: 'with --fencing (holder paused)', fencing: true },
  ],
  scenarios: [
    // pause-holder, with --watchdog, strikes only a section whose write falls due before the holder's next renewal,
    // so after SIGCONT the overdue write runs before the overdue renewal (the GC-pause story). Struck anywhere it was
    // a race, shot by shot (redlock, seed 42: one 10 s run lost 2 of 2 shots, the next 0 of 2). More shots per run: a
    // pause every ~4 s for at least 20 s.
    {
      id: 'pause-watchdog',
      place: 4,
      title: 'holder paused > TTL, --watchdog',
      fencing: false,
      remedy: { watchdog: true },
      maxIntervalMs: 1000,
      minTimeLimitS: 20,
    },
  ],
  colour: '#d946ef',
  evidence: {
    start: {
      ...section,
      ...lockStop,
      maxMs: num,
      ttlMs: num,
      /** With --watchdog: how many ms before its next renewal the holder's write was due (null: not known). */
      writeLeadMs: opt(orNull(num)),
      renewsInsideSection: opt(yes),
      thinkArmed: bool,
      aim: readAim,
    },
    end: {},
  },
} as const satisfies FaultFacts;
