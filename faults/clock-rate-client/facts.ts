import { num, str, strings, opt, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';
import { readRenewedBy } from './renewed-by.ts';

/** clock-rate-client: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "run the holder's own clocks — wall and monotonic, its timers and waits with them (scope process) — at --clock-rate × real speed for --pause ms while it is inside its critical section (LD_PRELOAD shim, no jump): a slow client's renewals come late",
  family: 'clock',
  holderWas: 'slowed past its lease by its own clock',
  aim: { struck: "ran {process}'s clocks at the rate" },
  hit: "ran a holder's clocks at the rate, proven by the slope of its own clock readings, while it was inside its critical section",
  story: [
    {
      id: 'struck',
      says: "the holder's clocks ran at the rate while it was inside its critical section: its process read its clocks through the shim, and its own wall and monotonic readings moved at the rate (±5 %) on the harness's clock",
    },
    {
      id: 'renewal-late',
      says: "the holder's lease ran out while its slowed clock kept it inside its section: its next renewal (--watchdog) went out a TTL or more after its last success; renewing nothing, its write a TTL or more after its grant; renewing itself outside the history (redis-semaphore), another client was granted the account meanwhile",
      held: 'its lease held all the same: its section outlasted the TTL and its renewals (or its own refresh: no other client was granted) kept the key; or, renewing nothing, its stretched section (half the TTL or more) still ended inside the TTL',
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  storyLimits:
    "only renewals in the history show: the run's --watchdog renewals; a library that refreshes its lock itself (redis-semaphore, redlock's auto-extension) renews unseen, so its late renewal is read from another client's grant inside the holder's section, never seen itself. Refused for a lock in another language (its process has no clock request yet) and for Go clients (the shim cannot reach them)",
  movesClocks: true,
  atClockRate: true,
  // The servers' clocks run at real speed, but the holder's own clock does not: a validity it measures with it (Redlock's)
  // can outlast the server's lease, so the promise a client reports is not safe from this fault.
  keepsServerLeases: false,
  colour: '#a855f7',
  evidence: {
    start: {
      ...section,
      rate: num,
      /** Which clocks the rate moved (realtime, monotonic), and that the process's waits were scaled with them. */
      clocks: strings,
      scope: str,
      ttlMs: num,
      /** What keeps the holder's lease alive, as the story can see it (renewed-by.ts); absent before 2026-12-06: --watchdog. */
      renewedBy: opt(readRenewedBy),
      aim: readAim,
    },
    end: {
      /** How fast the client's own `process.hrtime` / `Date.now()` advanced per ms of the harness's clock. */
      monoSlope: opt(num),
      wallSlope: opt(num),
      /** The harness time between the two readings the slopes are from, in ms. */
      probeMs: opt(num),
      /** Clock reads the client served through the shim while the rate held (0: the rate never reached it). */
      reads: num,
      /** Waits (timers, epoll) the shim stretched while the rate held. */
      waits: num,
      /** How far the client's monotonic and wall clocks were behind (−) or ahead of real time at the heal, ms. */
      monoDriftMs: opt(num),
      wallDriftMs: opt(num),
    },
  },
} as const satisfies FaultFacts;
