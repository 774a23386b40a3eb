import type { AnyModel, Footprint, Operation } from '../model.ts';
import { upperBound } from '../upper-bound.ts';
import { neededBy } from '../crashed-ops.ts';

/**
 * The set of ops the search has linearized so far, kept so that its memo key is small.
 *
 * Ids: completed ops first in call order (`0 … nOk-1`), then the never-completed ones. The key depends on it.
 *
 * A full bitset per configuration costs O(n) to copy and hash, which is O(n²) on a long, nearly sequential
 * history. But with `first` = the lowest unlinearized completed id, every linearized completed op above it was
 * invoked before `first` returned (it had to come before that return in the list), so the linearized set is
 * exactly: all ids below `first`, plus some ids in (first, horizon[first]]. Only those few words go in the key.
 */
export class Linearized {
  /** The lowest completed id not linearized (`nOk` once all are). */
  first = 0;
  private readonly okBits: Uint32Array;
  private readonly horizon: Int32Array;
  private readonly crashed: CrashedClasses;
  private readonly singleBits: Uint32Array;
  private readonly classCounts: Int32Array;
  private readonly dead: DeadCrashed;
  /** Each op's footprint, when the model has one and pruning is on; the `awaiting` rule reads it. */
  private readonly prints: Footprint[] | null;

  constructor(
    model: AnyModel,
    private readonly ops: Operation[],
    private readonly nOk: number,
    prune: boolean,
  ) {
    const callsSorted = ops.slice(0, nOk).map((op) => op.call);
    this.horizon = new Int32Array(nOk);
    for (let id = 0; id < nOk; id++) this.horizon[id] = upperBound(callsSorted, ops[id].return) - 1;
    this.okBits = new Uint32Array((nOk >> 5) + 1);
    this.crashed = crashedClasses(ops, nOk);
    this.singleBits = new Uint32Array((this.crashed.singles >> 5) + 1);
    this.classCounts = new Int32Array(this.crashed.multiCount);
    this.dead = new DeadCrashed(model, ops, nOk, prune, this.crashed, this.singleBits.length);
    this.prints = prune && model.footprint ? ops.map((op) => model.footprint!(op.input, op.output)) : null;
  }

  /** A crashed op whose observers are all linearized: not worth trying (see `DeadCrashed`). */
  isDead(id: number): boolean {
    return this.dead.unplacedObservers[id - this.nOk] === 0;
  }

  /** What op `id` needs of the state; only asked while something is awaited, which implies footprints. */
  needs(id: number): string | undefined {
    return this.prints![id].needs;
  }

  /**
   * A crashed op that needs nothing and leaves L ("crashed write L") need only be placed right before an op that
   * needs L: in any linearization, moving it up to its first observer, or dropping it when a write came between,
   * changes nothing (crashed-ops.ts). So once one is placed, the next op placed must need L: this returns that L
   * (the search's `awaiting`), or null. This stops crashed writes from being tried at every point between their
   * call and their read.
   */
  lazyLeaves(id: number): string | null {
    if (id < this.nOk || this.prints === null) return null;
    const p = this.prints[id];
    return p.needs === undefined && p.leaves !== undefined ? p.leaves : null;
  }

  /** Marks op `id` linearized; the caller keeps the old `first` to give back to `remove`. */
  add(id: number): void {
    const { nOk, crashed } = this;
    if (id < nOk) for (const i of this.dead.observes[id]) this.dead.observerPlaced(i);
    if (id < nOk) this.okBits[id >> 5] |= 1 << (id & 31);
    else if (crashed.bitOf[id - nOk] >= 0)
      this.singleBits[crashed.bitOf[id - nOk] >> 5] |= 1 << (crashed.bitOf[id - nOk] & 31);
    else this.classCounts[crashed.classOf[id - nOk]]++;
    if (id === this.first) this.first = this.advanceFirst(this.first + 1);
  }

  /** Undoes `add(id)`, `first` being its value before that `add`. */
  remove(id: number, first: number): void {
    const { nOk, crashed } = this;
    if (id < nOk) for (const i of this.dead.observes[id]) this.dead.observerUnplaced(i);
    if (id < nOk) this.okBits[id >> 5] &= ~(1 << (id & 31));
    else if (crashed.bitOf[id - nOk] >= 0)
      this.singleBits[crashed.bitOf[id - nOk] >> 5] &= ~(1 << (crashed.bitOf[id - nOk] & 31));
    else this.classCounts[crashed.classOf[id - nOk]]--;
    this.first = first;
  }

  /** The memo key of (this set, a state whose hash is `stateKey`). */
  key(stateKey: string): string {
    const { first, nOk, okBits, singleBits, classCounts, dead } = this;
    const { singles, multiCount, classSize } = this.crashed;
    let k = String(first);
    if (first < nOk) {
      const hi = this.horizon[first] >> 5;
      for (let w = first >> 5; w <= hi; w++) k += ',' + okBits[w];
    }
    if (singles > 0) {
      k += '|';
      for (let w = 0; w < singleBits.length; w++) k += (singleBits[w] & ~dead.singles[w]) + ',';
    }
    if (multiCount > 0) {
      k += '|';
      // A class's members share their footprint, so they die together.
      for (let c = 0; c < multiCount; c++) k += (dead.classMembers[c] === classSize[c] ? 'd' : classCounts[c]) + ',';
    }
    return k + '|' + stateKey;
  }

  private advanceFirst(from: number): number {
    const { nOk, okBits } = this;
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
  }
}

/**
 * Never-completed ops with the same input and output are interchangeable: all that were ever placed were
 * invoked before `first` returned (as above), and the rest of them stay placeable forever. So configurations
 * that differ only in *which* of them are placed have the same future, and the key counts them per class
 * instead of naming them. Without this, k timed-out `acquire`s (all alike) make 2^k configurations, not k+1.
 * Ops alone in their class keep a bit each. Arrays are indexed by crashed index `id - nOk`.
 */
interface CrashedClasses {
  /** The class of a crashed op that shares it (meaningless where `bitOf` is set). */
  classOf: Int32Array;
  /** The bit of a crashed op alone in its class, or -1. */
  bitOf: Int32Array;
  singles: number;
  multiCount: number;
  classSize: Int32Array;
}

function crashedClasses(ops: Operation[], nOk: number): CrashedClasses {
  const nCrashed = ops.length - nOk;
  const classOf = new Int32Array(nCrashed);
  const bitOf = new Int32Array(nCrashed).fill(-1);
  let singles = 0;
  let multiCount = 0;
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < nCrashed; i++) {
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
  const classSize = new Int32Array(multiCount);
  for (let i = 0; i < nCrashed; i++) if (bitOf[i] < 0) classSize[classOf[i]]++;
  return { classOf, bitOf, singles, multiCount, classSize };
}

/**
 * A crashed op whose observers (completed ops that need the state it leaves) are all linearized cannot help
 * any more (crashed-ops.ts): it is "dead", not tried, and whether it was placed is left out of the memo key,
 * since configurations that differ only in dead ops have the same future. Without this, k such ops make up
 * to 2^k configurations. Dead-ness is a function of the completed ops placed, which the key names exactly.
 */
class DeadCrashed {
  /** Per crashed op: how many of its observers are not linearized; -1 when it has no observer list (no pruning). */
  readonly unplacedObservers: Int32Array;
  /** Per completed op: the crashed ops it observes. */
  readonly observes: number[][];
  /** Dead single crashed ops, as bits like `singleBits`. */
  readonly singles: Uint32Array;
  /** Per class: how many of its members are dead. */
  readonly classMembers: Int32Array;

  constructor(
    model: AnyModel,
    ops: Operation[],
    nOk: number,
    prune: boolean,
    private readonly crashed: CrashedClasses,
    singleWords: number,
  ) {
    const observers = prune ? neededBy(model, ops, nOk) : ops.slice(nOk).map(() => null);
    this.unplacedObservers = new Int32Array(ops.length - nOk).fill(-1);
    this.observes = Array.from({ length: nOk }, () => []);
    this.singles = new Uint32Array(singleWords);
    this.classMembers = new Int32Array(crashed.multiCount);
    observers.forEach((obs, i) => {
      if (obs === null) return;
      this.unplacedObservers[i] = obs.length;
      for (const o of obs) this.observes[o].push(i);
      if (obs.length === 0) this.set(i, true);
    });
  }

  /** One more observer of crashed op `i` is linearized. */
  observerPlaced(i: number): void {
    if (--this.unplacedObservers[i] === 0) this.set(i, true);
  }

  observerUnplaced(i: number): void {
    if (this.unplacedObservers[i]++ === 0) this.set(i, false);
  }

  private set(i: number, dead: boolean): void {
    const bit = this.crashed.bitOf[i];
    if (bit >= 0) {
      if (dead) this.singles[bit >> 5] |= 1 << (bit & 31);
      else this.singles[bit >> 5] &= ~(1 << (bit & 31));
    } else this.classMembers[this.crashed.classOf[i]] += dead ? 1 : -1;
  }
}
