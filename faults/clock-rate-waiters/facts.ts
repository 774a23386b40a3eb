import { num, str, strings, opt, readAim, numberRecord } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';
import { section } from '../evidence-parts.ts';

/** clock-rate-waiters: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "run the clocks of every client but the holder — the waiters: wall and monotonic, their timers and waits with them (scope process) — at --clock-rate × real speed for --pause ms while the holder is inside its critical section (LD_PRELOAD shim, no jump): a fast waiter's own count of the holder's lease ends early",
  family: 'clock',
  aim: { struck: 'ran the clocks of the waiters {nodes} at the rate' },
  hit: "ran the waiters' clocks at the rate, proven by the slope of each one's own clock readings, while a holder was inside its critical section",
  story: [
    {
      id: 'struck',
      says: "the waiters' clocks ran at the rate while the holder was inside its critical section: each waiter's process read its clocks through the shim, and its own wall and monotonic readings moved at the rate (±5 %) on the harness's clock",
    },
    {
      id: 'lease-early',
      says: "a waiter took the holder's lease before it ran out by real time: it was granted the holder's account while the holder was inside its section, less than a TTL of real time after the holder's last grant or renewal — its own, faster clock had ended the lease",
      held: "the lease held all the same: no waiter was granted the holder's account before the holder wrote — the lock ends a lease by a clock the waiters' rate does not move (the server's)",
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  storyLimits:
    "a renewal a library sends itself is not in the history: the lease is counted from the holder's last grant or renewal the history shows, so a grant a TTL or more after it is not blamed on the waiters' clocks. Refused where clock-rate-client is: a lock in another language (its process answers no clock request yet), Go clients (the shim cannot reach them), a lock with no lease that ends by time",
  movesClocks: true,
  atClockRate: true,
  // A waiter that counts the holder's lease on its own clock (a client-time lease, DynamoDB's lease duration) may take
  // it while the server-side promise still runs: the promise a client reports is not safe from this fault.
  keepsServerLeases: false,
  colour: '#c084fc',
  evidence: {
    start: {
      ...section,
      rate: num,
      /** Which clocks the rate moved (realtime, monotonic), and that the waiters' waits were scaled with them. */
      clocks: strings,
      scope: str,
      ttlMs: num,
      /** The waiters' history processes (`p2`), in the order their records below are keyed. */
      waiters: strings,
      aim: readAim,
    },
    end: {
      /** Per waiter (`p2`): how fast its own `process.hrtime` / `Date.now()` advanced per ms of the harness's clock. */
      monoSlopes: numberRecord,
      wallSlopes: numberRecord,
      /** Per waiter: the harness time between the two readings its slopes are from, in ms. */
      probeMs: numberRecord,
      /** Per waiter: clock reads it served through the shim while the rate held (0: the rate never reached it). */
      reads: numberRecord,
      /** Per waiter: waits (timers, epoll) the shim scaled while the rate held. */
      waits: numberRecord,
      /** Per waiter: how far its monotonic clock was ahead (+) or behind (−) real time at the heal, ms. */
      monoDriftMs: opt(numberRecord),
    },
  },
} as const satisfies FaultFacts;
