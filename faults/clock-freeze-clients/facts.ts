import { num, numberRecord, strings } from '../evidence-fields.ts';
import type { FaultFacts } from '../fault-facts.ts';

/** clock-freeze-clients: what it is and what it records (its injection is inject.ts beside this file, its judge judge.ts). */
export const facts = {
  help: "freeze the wall clock (Date.now) of every client at one instant — all of them in the same second — for --pause ms (a script: until its heal), then back to real time (LD_PRELOAD shim); their monotonic clocks and timers run on: what a lock that takes its tokens or versions from the client's wall clock is tested by",
  family: 'clock',
  did: 'freezing the wall clocks of {targets}',
  aim: null,
  hit: "froze every client's wall clock: each one's own reading, asked when the freeze began and again at its end, in the frozen second",
  story: null,
  movesClocks: true,
  // Only the clients' wall clocks: a validity a client measures by its wall clock (Redlock's) outlasts the lease.
  keepsServerLeases: false,
  colour: '#7c2d12',
  evidence: {
    start: {
      /** The clients whose wall clocks stood still. */
      clients: strings,
      /** The wall time they stood at (ms since 1970): every one of them within the same second. */
      frozenAtMs: num,
      /** Each client's own wall clock reading right after the freeze (ms since 1970). */
      wallAtStart: numberRecord,
    },
    end: {
      /** Each client's own wall clock reading (ms since 1970), asked over its IPC channel as the freeze ends. */
      wallAtEnd: numberRecord,
      /** Clock reads each client served while frozen (the shim's counter), those readings included. */
      reads: numberRecord,
    },
  },
} as const satisfies FaultFacts;
