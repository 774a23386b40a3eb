import type { CheckerResult, Valid } from './run-results.ts';
import type { AnyModel, Operation } from './model.ts';
import { pruneCrashedOps } from './crashed-ops.ts';
import type { Counterexample } from './linearizable/counterexample.ts';
import { searchPartition } from './linearizable/search.ts';

export type { Counterexample, OpRef } from './linearizable/counterexample.ts';

/**
 * Linearizability checking: Wing & Gong's search with Lowe's memoisation, as Porcupine and Knossos's `wgl` do it.
 *
 * The search walks a doubly linked list of call/return events in history order. At each step it tries to
 * linearize a call that comes before the first remaining return (that op may take effect "now"); when it
 * reaches a return instead, the op that returns there was never placed, so it backtracks. A cache of visited
 * (linearized set, state) pairs stops it from exploring the same configuration twice, which is what keeps
 * concurrent histories tractable.
 *
 * Ops that never completed (`return: Infinity`) have their returns after every real one, so they never block:
 * the search may place them anywhere after their call, or never (when it reaches their return, every completed
 * op has been placed and the history is linearizable). Each one it keeps can double the configurations, so those
 * that no other op could observe are dropped first, and those whose observers are all placed are not tried
 * (crashed-ops.ts).
 *
 * As in Porcupine, the pieces are apart: this file is the driver (partitions, deadline, memory cap, the summed
 * result); `linearizable/search.ts` is the search loop of one partition, over the event list (`events.ts`) and
 * the linearized set with its memo key (`placed.ts`); `linearizable/counterexample.ts` turns the deepest dead end
 * into what a person reads.
 */

export interface LinearizableOptions {
  /** Wall-clock budget for the whole search, all partitions together. Past it the verdict is `unknown`. */
  deadlineMs?: number;
  /** Clock in ms; tests may inject one. */
  now?: () => number;
  /**
   * Most distinct configurations the memo cache may hold (all partitions together) before the search gives
   * up with `unknown`: a hard history must not take the harness down by running it out of memory.
   */
  maxConfigurations?: number;
  /**
   * Drop and skip crashed ops that cannot matter (crashed-ops.ts). Default true; off only to measure what it
   * saves (`npm run bench -- checker`).
   */
  pruneCrashed?: boolean;
}

export interface LinearizableResult extends CheckerResult {
  model: string;
  operations: number;
  partitions: number;
  /** Search steps: ops tried plus backtracks. A measure of how hard the history was. */
  explored: number;
  /** Distinct configurations (linearized set × state) the memo cache held. */
  configurations: number;
  /** Crashed ops dropped before the search because no other op could observe their effect (crashed-ops.ts). */
  prunedCrashed: number;
  elapsedMs: number;
  /** Why the verdict is `unknown`: the deadline passed, or the memo cache reached `maxConfigurations`. */
  cause?: 'timeout' | 'memory';
  counterexample?: Counterexample;
}

const DEFAULT_DEADLINE_MS = 60_000;
/**
 * Measured ~260 bytes of heap per cached configuration on a hard 800-op register history (5M → 1.3 GB), so
 * 2M stays near 500 MB: well inside Node's default heap on a small machine.
 */
const DEFAULT_MAX_CONFIGURATIONS = 2_000_000;

export function checkLinearizable(
  model: AnyModel,
  ops: Operation[],
  opts: LinearizableOptions = {},
): LinearizableResult {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const deadline = started + (opts.deadlineMs ?? DEFAULT_DEADLINE_MS);
  let prunedCrashed = 0;
  const partitions = (model.partition ? model.partition(ops) : [ops])
    .map((p) => {
      const kept = opts.pruneCrashed === false ? { ops: p, pruned: 0 } : pruneCrashedOps(model, p);
      prunedCrashed += kept.pruned;
      return kept.ops;
    })
    .filter((p) => p.length > 0);

  const budget = { deadline, now, configurationsLeft: opts.maxConfigurations ?? DEFAULT_MAX_CONFIGURATIONS };
  let explored = 0;
  let configurations = 0;
  let cause: 'timeout' | 'memory' | undefined;
  const summary = () => ({
    model: model.name,
    operations: ops.length,
    partitions: partitions.length,
    explored,
    configurations,
    prunedCrashed,
    elapsedMs: now() - started,
  });
  for (const part of partitions) {
    const outcome = searchPartition(model, part, budget, opts.pruneCrashed !== false);
    explored += outcome.explored;
    configurations += outcome.configurations;
    if (outcome.valid === false) return { valid: false, ...summary(), counterexample: outcome.counterexample };
    // Keep going after running out: a later partition may still prove the history invalid, and a definite
    // `false` outranks `unknown`. Once the deadline has passed the remaining partitions stop at once.
    if (outcome.valid === 'unknown') cause ??= outcome.cause;
  }
  const valid: Valid = cause ? 'unknown' : true;
  return { valid, ...summary(), ...(cause ? { cause } : {}) };
}
