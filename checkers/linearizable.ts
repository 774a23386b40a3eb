import type { CheckerResult, Valid } from './run-results.ts';
import type { AnyModel, Operation } from './model.ts';
import { upperBound } from './upper-bound.ts';
import { neededBy, pruneCrashedOps } from './crashed-ops.ts';

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
/** How many ops of the prefix a counterexample shows; a person reads the end of it, not all of it. */
const PREFIX_TAIL = 3;
const MAX_CONCURRENT_SHOWN = 20;

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

type Outcome = { explored: number; configurations: number } & (
  | { valid: true }
  | { valid: 'unknown'; cause: 'timeout' | 'memory' }
  | { valid: false; counterexample: Counterexample }
);

interface Budget {
  deadline: number;
  now: () => number;
  /** Shared by all partitions, so the cap bounds the whole check. */
  configurationsLeft: number;
}

/** A linearized op on the search stack; `parent` links make the stack persistent, so the best one can be kept. */
interface Frame {
  id: number;
  /** State and first-unlinearized id before this op was applied, restored on backtrack. */
  state: unknown;
  first: number;
  /** What the next op had to need before this op was placed (see `awaiting`). */
  awaiting: string | null;
  parent: Frame | null;
  depth: number;
}

function searchPartition(model: AnyModel, input: Operation[], budget: Budget, prune: boolean): Outcome {
  const hash = model.hash ?? ((s: unknown) => JSON.stringify(s) ?? 'undefined');

  // Ids: completed ops first in call order, then the never-completed ones. The cache key depends on it (below).
  const completed = input.filter((op) => op.return !== Infinity).sort((a, b) => a.call - b.call);
  const pending = input.filter((op) => op.return === Infinity).sort((a, b) => a.call - b.call);
  const ops = completed.concat(pending);
  const n = ops.length;
  const nOk = completed.length;

  // Events: node 0 is the list head; op id i has its call at node 2i+1 and its return at node 2i+2.
  const pos = new Float64Array(2 * n + 1);
  const nodes: number[] = [];
  for (let id = 0; id < n; id++) {
    pos[2 * id + 1] = ops[id].call;
    pos[2 * id + 2] = ops[id].return;
    nodes.push(2 * id + 1, 2 * id + 2);
  }
  nodes.sort((a, b) => {
    const d = pos[a] - pos[b];
    if (d !== 0 && !Number.isNaN(d)) return d;
    // Equal positions: calls before returns, so ops that touch count as concurrent (the permissive reading).
    const ka = a & 1 ? 0 : 1;
    const kb = b & 1 ? 0 : 1;
    if (ka !== kb) return ka - kb;
    return a - b; // also orders the returns at Infinity by id, i.e. by call
  });
  const nxt = new Int32Array(2 * n + 1).fill(-1);
  const prv = new Int32Array(2 * n + 1).fill(-1);
  let last = 0;
  for (const node of nodes) {
    nxt[last] = node;
    prv[node] = last;
    last = node;
  }

  // Cache key. A full bitset per configuration costs O(n) to copy and hash, which is O(n²) on a long, nearly
  // sequential history. But with `first` = the lowest unlinearized completed id, every linearized completed
  // op above it was invoked before `first` returned (it had to come before that return in the list), so the
  // linearized set is exactly: all ids below `first`, plus some ids in (first, horizon[first]]. Only those
  // few words go in the key.
  const callsSorted = completed.map((op) => op.call);
  const horizon = new Int32Array(nOk);
  for (let id = 0; id < nOk; id++) horizon[id] = upperBound(callsSorted, completed[id].return) - 1;
  const okBits = new Uint32Array((nOk >> 5) + 1);
  let first = 0;

  // Never-completed ops with the same input and output are interchangeable: all that were ever placed were
  // invoked before `first` returned (as above), and the rest of them stay placeable forever. So configurations
  // that differ only in *which* of them are placed have the same future, and the key counts them per class
  // instead of naming them. Without this, k timed-out `acquire`s (all alike) make 2^k configurations, not k+1.
  // Ops alone in their class keep a bit each.
  const classOf = new Int32Array(n - nOk);
  const bitOf = new Int32Array(n - nOk).fill(-1);
  let singles = 0;
  let multiCount = 0;
  {
    const byKey = new Map<string, number[]>();
    for (let i = 0; i < n - nOk; i++) {
      const op = ops[nOk + i];
      const key = `${JSON.stringify(op.input)}\u0000${JSON.stringify(op.output)}`;
      const members = byKey.get(key);
      if (members) members.push(i);
      else byKey.set(key, [i]);
    }
    for (const members of byKey.values()) {
      if (members.length === 1) bitOf[members[0]] = singles++;
      else {
        for (const i of members) classOf[i] = multiCount;
        multiCount++;
      }
    }
  }
  const singleBits = new Uint32Array((singles >> 5) + 1);
  const classCounts = new Int32Array(multiCount);
  // A crashed op whose observers (completed ops that need the state it leaves) are all linearized cannot help
  // any more (crashed-ops.ts): it is "dead", not tried, and whether it was placed is left out of the memo key,
  // since configurations that differ only in dead ops have the same future. Without this, k such ops make up
  // to 2^k configurations. Dead-ness is a function of the completed ops placed, which the key names exactly.
  const observers = prune ? neededBy(model, ops, nOk) : ops.slice(nOk).map(() => null);
  const unplacedObservers = new Int32Array(n - nOk).fill(-1);
  const observes: number[][] = Array.from({ length: nOk }, () => []);
  const deadSingles = new Uint32Array(singleBits.length);
  const deadClassMembers = new Int32Array(multiCount);
  const classSize = new Int32Array(multiCount);
  for (let i = 0; i < n - nOk; i++) if (bitOf[i] < 0) classSize[classOf[i]]++;
  const setDead = (i: number, dead: boolean): void => {
    if (bitOf[i] >= 0) {
      if (dead) deadSingles[bitOf[i] >> 5] |= 1 << (bitOf[i] & 31);
      else deadSingles[bitOf[i] >> 5] &= ~(1 << (bitOf[i] & 31));
    } else deadClassMembers[classOf[i]] += dead ? 1 : -1;
  };
  observers.forEach((obs, i) => {
    if (obs === null) return;
    unplacedObservers[i] = obs.length;
    for (const o of obs) observes[o].push(i);
    if (obs.length === 0) setDead(i, true);
  });
  const isDead = (id: number): boolean => unplacedObservers[id - nOk] === 0;
  // A crashed op that needs nothing and leaves L ("crashed write L") need only be placed right before an op that
  // needs L: in any linearization, moving it up to its first observer, or dropping it when a write came between,
  // changes nothing (crashed-ops.ts). So once one is placed, the next op placed must need L (`awaiting`). This
  // stops crashed writes from being tried at every point between their call and their read.
  const prints = prune && model.footprint ? ops.map((op) => model.footprint!(op.input, op.output)) : null;
  const lazyLeaves = (id: number): string | null => {
    if (id < nOk || prints === null) return null;
    const p = prints[id];
    return p.needs === undefined && p.leaves !== undefined ? p.leaves : null;
  };
  let awaiting: string | null = null;

  const setBit = (id: number): void => {
    if (id < nOk) for (const i of observes[id]) if (--unplacedObservers[i] === 0) setDead(i, true);
    if (id < nOk) okBits[id >> 5] |= 1 << (id & 31);
    else if (bitOf[id - nOk] >= 0) singleBits[bitOf[id - nOk] >> 5] |= 1 << (bitOf[id - nOk] & 31);
    else classCounts[classOf[id - nOk]]++;
  };
  const clearBit = (id: number): void => {
    if (id < nOk) for (const i of observes[id]) if (unplacedObservers[i]++ === 0) setDead(i, false);
    if (id < nOk) okBits[id >> 5] &= ~(1 << (id & 31));
    else if (bitOf[id - nOk] >= 0) singleBits[bitOf[id - nOk] >> 5] &= ~(1 << (bitOf[id - nOk] & 31));
    else classCounts[classOf[id - nOk]]--;
  };
  const advanceFirst = (from: number): number => {
    let i = from;
    while (i < nOk) {
      const w = okBits[i >> 5];
      if (w === 0xffffffff) {
        i = ((i >> 5) + 1) << 5;
        continue;
      }
      if ((w & (1 << (i & 31))) === 0) return i;
      i++;
    }
    return nOk;
  };
  const configKey = (stateKey: string): string => {
    let k = String(first);
    if (first < nOk) {
      const hi = horizon[first] >> 5;
      for (let w = first >> 5; w <= hi; w++) k += ',' + okBits[w];
    }
    if (singles > 0) {
      k += '|';
      for (let w = 0; w < singleBits.length; w++) k += (singleBits[w] & ~deadSingles[w]) + ',';
    }
    if (multiCount > 0) {
      k += '|';
      // A class's members share their footprint, so they die together.
      for (let c = 0; c < multiCount; c++) k += (deadClassMembers[c] === classSize[c] ? 'd' : classCounts[c]) + ',';
    }
    return k + '|' + stateKey;
  };

  const lift = (call: number): void => {
    const ret = call + 1;
    nxt[prv[call]] = nxt[call];
    if (nxt[call] !== -1) prv[nxt[call]] = prv[call];
    nxt[prv[ret]] = nxt[ret];
    if (nxt[ret] !== -1) prv[nxt[ret]] = prv[ret];
  };
  const unlift = (call: number): void => {
    const ret = call + 1;
    nxt[prv[ret]] = ret;
    if (nxt[ret] !== -1) prv[nxt[ret]] = ret;
    nxt[prv[call]] = call;
    if (nxt[call] !== -1) prv[nxt[call]] = call;
  };

  const cache = new Set<string>();
  let state: unknown = model.init();
  let top: Frame | null = null;
  // The deepest dead end: the longest linearizable prefix, and the op whose return stopped it.
  let best: { frame: Frame | null; blocked: number; state: unknown } | null = null;
  let explored = 0;
  let entry = nxt[0];

  while (entry !== -1) {
    if ((explored++ & 1023) === 0 && budget.now() > budget.deadline) {
      return { valid: 'unknown', cause: 'timeout', explored, configurations: cache.size };
    }
    const id = (entry - 1) >> 1;
    if (entry & 1) {
      if ((id >= nOk && isDead(id)) || (awaiting !== null && prints![id].needs !== awaiting)) {
        entry = nxt[entry];
        continue;
      }
      const op = ops[id];
      const [ok, next] = model.step(state, op.input, op.output);
      if (ok) {
        const savedFirst = first;
        setBit(id);
        if (id === first) first = advanceFirst(first + 1);
        const nextAwaiting = lazyLeaves(id);
        const key = configKey(hash(next)) + (nextAwaiting === null ? '' : `|>${nextAwaiting}`);
        if (!cache.has(key)) {
          if (budget.configurationsLeft-- <= 0)
            return { valid: 'unknown', cause: 'memory', explored, configurations: cache.size };
          cache.add(key);
          top = { id, state, first: savedFirst, awaiting, parent: top, depth: top ? top.depth + 1 : 1 };
          state = next;
          awaiting = nextAwaiting;
          lift(entry);
          entry = nxt[0];
          continue;
        }
        clearBit(id);
        first = savedFirst;
      }
      entry = nxt[entry];
      continue;
    }
    // A return. If it belongs to a never-completed op, every completed op is already placed: done.
    if (id >= nOk) return { valid: true, explored, configurations: cache.size };
    if (best === null || (top ? top.depth : 0) > (best.frame ? best.frame.depth : 0)) {
      best = { frame: top, blocked: id, state };
    }
    if (top === null)
      return { valid: false, explored, configurations: cache.size, counterexample: counterexample(model, ops, best) };
    const frame: Frame = top;
    top = frame.parent;
    state = frame.state;
    first = frame.first;
    awaiting = frame.awaiting;
    clearBit(frame.id);
    entry = 2 * frame.id + 1;
    unlift(entry);
    entry = nxt[entry];
  }
  return { valid: true, explored, configurations: cache.size };
}

function counterexample(
  model: AnyModel,
  ops: Operation[],
  best: { frame: Frame | null; blocked: number; state: unknown },
): Counterexample {
  const describeOp = (op: Operation): OpRef => ({
    process: op.process,
    description: model.describeOperation ? model.describeOperation(op.input, op.output) : JSON.stringify(op.input),
    indexes: op.indexes,
  });
  const label = (ref: OpRef): string => `op #${ref.indexes[0]} (process ${ref.process}: ${ref.description})`;
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
  let message =
    `${label(blocked)} cannot be linearized. The longest linearizable prefix found has ${prefix.length} of ` +
    `${ops.length} ops` +
    (prefixTail.length > 0 ? `, ending with ${label(prefixTail[prefixTail.length - 1])}` : '') +
    `; after it the state is ${state}` +
    (possibleNow ? ', and placing the op there leads to a dead end later' : ', in which the op is impossible');
  if (concurrentOps.length === 0) {
    message += '; no op outside that prefix was open early enough to be placed before it.';
  } else {
    const shown = concurrent.map(label).join(', ');
    const more =
      concurrentOps.length > concurrent.length ? ` and ${concurrentOps.length - concurrent.length} more` : '';
    message += `; no order of the ${concurrentOps.length} other op(s) open before it returned (${shown}${more}) makes it possible.`;
  }
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
