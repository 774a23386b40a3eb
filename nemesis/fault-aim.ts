import type { CriticalSection } from './critical-sections.ts';

/**
 * The evidence a fault aimed at the lock (pause-holder, restart-empty, clock) records in its `start` params under
 * `aim`, taken at the moment it struck. The history is the only thing that passes from a run to `check`, so this
 * is what lets `check` decide from the history alone whether the fault hit: the holder's `read` at `readIndex`
 * must be in the history, none of the holder's ops may come between it and `atIndex`, and the nodes struck must
 * have held the lock key.
 */
export interface FaultAim {
  /** The client that was inside its critical section (between its `read` ok and its `write`). */
  process: number;
  account: number;
  /** History index of the `read` ok that opened that critical section. */
  readIndex: number;
  /** Journal size right after the fault struck: a holder's op with a smaller index came before the fault. */
  atIndex: number;
  /** The nodes struck (killed, clock jumped); absent for a paused client. */
  struck?: string[];
  /** Redis faults: the lock keys each node had when probed right before striking (nodes without one left out). */
  keysOn?: Record<string, string[]>;
  /** Redis faults: how many of the nodes holding the key had to be struck for another client to win the lock. */
  needed?: number;
}

/** The aim of a fault that struck `section`, with the journal at `atIndex` entries. */
export function aimAt(section: CriticalSection, atIndex: number, extra: Pick<FaultAim, 'struck' | 'keysOn' | 'needed'> = {}): FaultAim {
  return { process: section.process, account: section.account, readIndex: section.readIndex, atIndex, ...extra };
}
