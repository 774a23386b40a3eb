import { FAULT_CATALOGUE } from '../faults/catalogue.ts';
import type { FaultName } from '../faults/fault-names.ts';
import type { RunPromise } from './cell-promise.ts';

/**
 * What the oracle expects of a measured cell's "broke its promise" column (checkers/promise/):
 * - `kept`: no overlap may be the lock's own doing (0 broken). A correct lock server cannot grant inside a lease it
 *   promised when the fault touches only its clients, nor when its state lives in a consensus store or a database.
 * - `may-break`: the fault takes the lock's own state away (a Redis restarted empty, a promoted replica, a server
 *   clock that jumps): the lock may break its promise, and how often is the finding, not a contradiction.
 */
export type PromiseExpect = 'kept' | 'may-break';

export interface PromiseExpectation {
  expect: PromiseExpect;
  reason: string;
}

/** The cell's expectation from the lock's servers and the faults of its column (none: the no-fault column). */
export function promiseExpectation(
  lock: { needs: readonly string[] },
  faults: readonly FaultName[],
  /** The oracle cell's own word, when the lock's logic can break its promise where the rule says kept. */
  own?: PromiseExpectation,
): PromiseExpectation {
  if (own) return own;
  if (faults.length === 0) return { expect: 'kept', reason: 'no fault: nothing can take a lease away' };
  const other = faults.filter((f) => !FAULT_CATALOGUE[f].keepsServerLeases);
  if (other.length === 0)
    return { expect: 'kept', reason: `${faults.join(', ')} acts on the clients only: the servers keep every lease` };
  if (!lock.needs.includes('redis'))
    return {
      expect: 'kept',
      reason: 'its leases live in a consensus store or a database, which no single fault of the catalogue makes forget',
    };
  return {
    expect: 'may-break',
    reason: `${other.join(', ')} can take the lock's own state away (keys, clock): a broken promise is a finding`,
  };
}

/**
 * Whether the cell's promise tally agrees: `kept` fails on any broken promise; a cell whose runs knew no promise
 * (a lock that reports no lease) or predate the checker cannot contradict it, and says so in its note.
 */
export function promiseMatches(expect: PromiseExpectation, p: RunPromise | undefined): boolean {
  return expect.expect === 'may-break' || !p || p.broken === 0;
}

/** The cell's note when its promise contradicts the expectation; undefined when it agrees. */
export function promiseNote(expect: PromiseExpectation, p: RunPromise | undefined): string | undefined {
  if (promiseMatches(expect, p)) return undefined;
  return `broke its promise ${p!.broken}× where the oracle expects it kept (${expect.reason})`;
}
