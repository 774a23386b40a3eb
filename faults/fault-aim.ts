/**
 * The evidence a fault aimed at the lock (a catalogue row with an `aim`: faults/catalogue.ts) records in
 * its `start` params under `aim`, taken at the moment it struck. The history is the only thing that passes from a run to `check`, so this
 * is what lets `check` decide from the history alone whether the fault hit: the holder's `read` (stamped
 * `readTime`) must be in the history, none of the holder's ops may have started between it and the strike
 * (`atTime`), and the nodes struck must have held the lock key. Times, not indexes, decide: clients stamp their
 * own ops and the history is put in time order after the run, which renumbers it; `readIndex`/`atIndex` are the
 * journal's arrival positions, kept for the log.
 */
export interface FaultAim {
  /** The client that was inside its critical section (between its `read` ok and its `write`). */
  process: number;
  account: number;
  /** History index of the `read` ok that opened that critical section. */
  readIndex: number;
  /** That read's `time`: with `process`, it names the op whatever the history's order. */
  readTime?: number;
  /** Journal size right after the fault struck (arrival order). */
  atIndex: number;
  /** When the fault struck, ns on the history's clock (CLOCK_MONOTONIC, shared with the clients' stamps). */
  atTime?: number;
  /** The nodes struck (killed, clock jumped); absent for a paused client. */
  struck?: string[];
  /** Redis faults: the lock keys each node had when probed right before striking (nodes without one left out). */
  keysOn?: Record<string, string[]>;
  /** Redis faults: how many of the nodes holding the key had to be struck for another client to win the lock. */
  needed?: number;
}
