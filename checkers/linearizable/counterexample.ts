import type { AnyModel, Operation } from '../model.ts';

/** An op as a person reads it in a counterexample. */
export interface OpRef {
  process: number | string;
  description: string;
  /** History indexes (invoke, completion, …). */
  indexes: number[];
}

export interface Counterexample {
  /** The op that could not be placed next after the longest linearizable prefix. */
  op: OpRef;
  /** How many ops of this partition the longest linearizable prefix holds, and how many the partition has. */
  prefixLength: number;
  partitionSize: number;
  /** The last ops of that prefix, in linearization order. */
  prefixTail: OpRef[];
  /** Model state after the prefix. */
  state: string;
  /** Ops outside the prefix that were invoked before `op` returned, so could have been placed before it. */
  concurrent: OpRef[];
  /** Ops of the prefix whose intervals overlap `op`'s: the orders the search could choose between. */
  overlapping: OpRef[];
  /** All history indexes of the ops above, sorted: the window to look at. */
  window: number[];
  message: string;
}

/** A linearized op on the search stack; `parent` links make the stack persistent, so the best one can be kept. */
export interface Frame {
  id: number;
  /** State and first-unlinearized id before this op was applied, restored on backtrack. */
  state: unknown;
  first: number;
  /** What the next op had to need before this op was placed (see `Linearized.lazyLeaves`). */
  awaiting: string | null;
  parent: Frame | null;
  depth: number;
}

/** The deepest dead end the search met: its prefix (the stack), the op whose return stopped it, the state. */
export interface DeadEnd {
  frame: Frame | null;
  blocked: number;
  state: unknown;
}

/** How many ops of the prefix a counterexample shows; a person reads the end of it, not all of it. */
const PREFIX_TAIL = 3;
const MAX_CONCURRENT_SHOWN = 20;

/** The counterexample a person reads, from the deepest dead end of a partition (`ops` in search id order). */
export function counterexample(model: AnyModel, ops: Operation[], best: DeadEnd): Counterexample {
  const describeOp = (op: Operation): OpRef => ({
    process: op.process,
    description: model.describeOperation ? model.describeOperation(op.input, op.output) : JSON.stringify(op.input),
    indexes: op.indexes,
  });
  const describeState = (s: unknown): string => (model.describeState ? model.describeState(s) : JSON.stringify(s));

  const prefix: number[] = [];
  for (let f = best.frame; f !== null; f = f.parent) prefix.push(f.id);
  prefix.reverse();
  const inPrefix = new Set(prefix);
  const blockedOp = ops[best.blocked];
  const blocked = describeOp(blockedOp);
  const concurrentOps = ops.filter((op, id) => id !== best.blocked && !inPrefix.has(id) && op.call <= blockedOp.return);
  const concurrent = concurrentOps.slice(0, MAX_CONCURRENT_SHOWN).map(describeOp);
  const prefixTail = prefix.slice(-PREFIX_TAIL).map((id) => describeOp(ops[id]));
  // Prefix ops that overlap the blocked one belong in the window too: they are the orders the search tried.
  const overlapping = prefix
    .filter((id) => ops[id].return >= blockedOp.call)
    .slice(-MAX_CONCURRENT_SHOWN)
    .map((id) => describeOp(ops[id]));
  const window = [...new Set([...prefixTail, ...overlapping, blocked, ...concurrent].flatMap((r) => r.indexes))]
    .filter((i) => i >= 0)
    .sort((a, b) => a - b);
  const state = describeState(best.state);
  const [possibleNow] = model.step(best.state, blockedOp.input, blockedOp.output);
  const message = explain({
    blocked,
    prefix,
    prefixTail,
    state,
    possibleNow,
    concurrent,
    concurrentTotal: concurrentOps.length,
    size: ops.length,
  });
  return {
    op: blocked,
    prefixLength: prefix.length,
    partitionSize: ops.length,
    prefixTail,
    state,
    concurrent,
    overlapping,
    window,
    message,
  };
}

const label = (ref: OpRef): string => `op #${ref.indexes[0]} (process ${ref.process}: ${ref.description})`;

function explain(c: {
  blocked: OpRef;
  prefix: number[];
  prefixTail: OpRef[];
  state: string;
  possibleNow: boolean;
  concurrent: OpRef[];
  concurrentTotal: number;
  size: number;
}): string {
  let message =
    `${label(c.blocked)} cannot be linearized. The longest linearizable prefix found has ${c.prefix.length} of ` +
    `${c.size} ops` +
    (c.prefixTail.length > 0 ? `, ending with ${label(c.prefixTail[c.prefixTail.length - 1])}` : '') +
    `; after it the state is ${c.state}` +
    (c.possibleNow ? ', and placing the op there leads to a dead end later' : ', in which the op is impossible');
  if (c.concurrentTotal === 0) {
    message += '; no op outside that prefix was open early enough to be placed before it.';
  } else {
    const shown = c.concurrent.map(label).join(', ');
    const more = c.concurrentTotal > c.concurrent.length ? ` and ${c.concurrentTotal - c.concurrent.length} more` : '';
    message += `; no order of the ${c.concurrentTotal} other op(s) open before it returned (${shown}${more}) makes it possible.`;
  }
  return message;
}
