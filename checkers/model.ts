/**
 * The contract between the linearizability search and a datatype, in Porcupine's shape: a model is a handful
 * of pure functions of its state, and the search never looks inside a state except through `hash`.
 */

/**
 * One operation as the search sees it: an interval [call, return] in history order with an input and an output.
 *
 * `call` and `return` are positions (history indexes), not times: the journal is appended in the harness's
 * real-time order, and Jepsen/Knossos EDN histories often carry no times at all (or unordered ones).
 */
export interface Operation<I = unknown, O = unknown> {
  /** Who issued it (Porcupine's ClientId). Ops of one process never overlap. */
  process: number | string;
  input: I;
  /**
   * What it returned. `undefined` when nobody knows (a Jepsen `info` read): the model must then accept any
   * output. An op that never returned may still carry a known output (the account model's read half).
   */
  output: O | undefined;
  /** Position of the invocation. */
  call: number;
  /**
   * Position of the completion, or `Infinity` when the op never completed (`info`, or cut off by the end of the
   * history). Such an op may take effect at any point after its call, or never (Porcupine's rule).
   */
  return: number;
  /** History indexes this op was built from (invoke, completion, …), so a report can point at the journal. */
  indexes: number[];
}

/** A model: the sequential specification that concurrent operations are checked against. */
export interface Model<S = unknown, I = unknown, O = unknown> {
  name: string;
  init(): S;
  /**
   * Applies one op to a state. Returns `[true, next]` when the op, with that input and output, is possible in
   * `state`; `[false, state]` otherwise. Must be pure: the search calls it many times on the same state.
   */
  step(state: S, input: I, output: O | undefined): [boolean, S];
  /**
   * P-compositionality: when the datatype is a product of independent objects (one register per key, one
   * balance per account), the history is linearizable iff each part is, and the parts are checked alone.
   */
  partition?(ops: Operation<I, O>[]): Operation<I, O>[][];
  /**
   * A canonical key of a state: `hash(a) === hash(b)` exactly when the states are equal (Porcupine's `equal`,
   * expressed as a key so the memo cache can be a plain Map). Defaults to `JSON.stringify`.
   */
  hash?(state: S): string;
  /**
   * What an op needs of the state and what it leaves behind, as `hash` keys, so the search can ignore crashed
   * ops that no other op could ever observe (see crashed-ops.ts). Optional: without it every crashed op stays.
   * A model that gives it promises, for every op:
   * - `needs` set: the op is impossible in every state some op `leaves` whose hash is not `needs`;
   * - `needs` unset: the op is possible in every state, and keeps it (`leaves` unset) or sets it to `leaves`;
   * - `leaves` set: whenever the op is possible, the state after it hashes to `leaves`.
   */
  footprint?(input: I, output: O | undefined): Footprint;
  describeOperation?(input: I, output: O | undefined): string;
  describeState?(state: S): string;
}

/** See `Model.footprint`. */
export interface Footprint {
  needs?: string;
  leaves?: string;
}

/** A `needs` no state hashes to: for ops the model never allows (an unknown `f`, a malformed cas). */
export const IMPOSSIBLE = '\u0000impossible';

/** A model erased to unknown types, so checkers can keep models of different types in one table. */
export type AnyModel = Model<any, any, any>;

/** Structural equality of JSON-like values (what Knossos's `=` does for the values histories hold). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
