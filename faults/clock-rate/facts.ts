import { num, str, strings, opt, numberRecord, readAim } from '../evidence-fields.ts';
import { HOLDER_WROTE, GRANTED, BOTH_WROTE, type FaultFacts } from '../fault-facts.ts';

/** clock-rate: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: 'run the wall clock of the Redis node(s) holding the lock at --clock-rate × real speed while its holder is inside its critical section (LD_PRELOAD shim, no jump), then back to real speed from where it got',
  family: 'clock',
  aim: { struck: 'ran the clock of {nodes} at the rate' },
  hit: 'ran the clock of a node holding the lock at the rate, proven by the slope of a probe key, while its holder was inside its critical section',
  story: [
    {
      id: 'struck',
      says: "the clocks of the nodes holding the key ran at the rate while the holder was inside its critical section: each node read its shimmed clock, and a probe key's PTTL fell at the rate (±5 %) on the harness's clock",
    },
    {
      id: 'lease-expired',
      says: "the holder was still inside its section when its key, on the server's clock at the rate, expired: the key's TTL left at the strike, divided by the rate, ran out before the holder wrote",
      held: "its watchdog renewed the key in time: a renewal succeeded after the strike, before the holder's write, and no other client was granted meanwhile",
    },
    GRANTED,
    HOLDER_WROTE,
    BOTH_WROTE,
  ],
  storyLimits: 'strikes Redis nodes only (the probe is a Redis key); other servers are refused',
  movesClocks: true,
  atClockRate: true,
  keepsServerLeases: false,
  colour: '#7e22ce',
  evidence: {
    start: {
      rate: num,
      /** The run's TTL: what the key's life at the rate is counted from (absent before 2026-12-06). */
      ttlMs: opt(num),
      /** Which clocks the rate moved, and whether the process's waits were scaled with them. */
      clocks: strings,
      scope: str,
      keys: opt(strings),
      holder: opt(str),
      holding: opt(strings),
      aim: readAim,
    },
    end: {
      /** Per struck node: how fast a probe key's PTTL fell per ms of the harness's clock while the rate held. */
      slopes: numberRecord,
      /** Per node: the harness time between the two PTTL reads the slope is from, in ms. */
      probeMs: numberRecord,
      /** Per node: clock reads the node served through the shim while the rate held (0: the rate never reached it). */
      reads: numberRecord,
      /** Per node: its `TIME` right before and right after the rate went back to 1, µs — the clock never stepped back. */
      timeBeforeHealUs: numberRecord,
      timeAfterHealUs: numberRecord,
      /** Per node: how far its wall clock is ahead of real time once the rate is back to 1 (the drift it gathered), ms. */
      driftMs: numberRecord,
    },
  },
} as const satisfies FaultFacts;
