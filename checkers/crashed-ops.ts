import type { AnyModel, Footprint, Operation } from './model.ts';

/**
 * Which crashed ops (never returned: `return === Infinity`) can matter to a linearizability verdict.
 *
 * A crashed op may be linearized anywhere after its call, or never, so each one the search keeps doubles the
 * configurations it may have to rule out: a history with many of them ends `unknown` however it is memoised.
 * But a crashed op c that leaves state L (its footprint's `leaves`) is only ever *needed* if some other op needs
 * L. Proof: take a linearization that places c, and remove c. Until the next op that sets the state outright,
 * the ops after c ran in L; none needs L, so (footprint contract) each of them needs nothing and keeps the state,
 * which they equally do in the state before c. From that setter on, nothing changed. So the history without c is
 * linearizable iff it is with c, and c can go. Dropping one op can free another (a crashed cas from L), so this
 * repeats until nothing changes.
 *
 * The same argument holds in the middle of the search: once every op that needs L is linearized, c is dead
 * weight and need not be tried (`neededBy`).
 *
 * And a crashed op c that needs nothing (a write) need only be placed right before an op that needs L. Take a
 * linearization placing c and let O be the first op after it that needs L. If an op between them changed the
 * state, O is explained without c: drop c (as above). If none did, every op between needs nothing and keeps the
 * state, so moving c to just before O changes no op's outcome. The search enforces it (linearizable.ts).
 */
export function pruneCrashedOps(model: AnyModel, ops: Operation[]): { ops: Operation[]; pruned: number } {
  if (!model.footprint) return { ops, pruned: 0 };
  const prints = ops.map((op) => model.footprint!(op.input, op.output));
  const needers = new Map<string, number>();
  for (const p of prints) if (p.needs !== undefined) needers.set(p.needs, (needers.get(p.needs) ?? 0) + 1);
  const dropped = new Uint8Array(ops.length);
  let pruned = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < ops.length; i++) {
      if (dropped[i] || ops[i].return !== Infinity || !canGo(prints[i], needers)) continue;
      dropped[i] = 1;
      pruned++;
      changed = true;
      if (prints[i].needs !== undefined) needers.set(prints[i].needs!, needers.get(prints[i].needs!)! - 1);
    }
  }
  return pruned === 0 ? { ops, pruned } : { ops: ops.filter((_, i) => !dropped[i]), pruned };
}

/** Nobody else needs what it leaves (it may need it itself: a crashed `cas 1 → 1`). */
function canGo(p: Footprint, needers: Map<string, number>): boolean {
  if (p.leaves === undefined) return false;
  return (needers.get(p.leaves) ?? 0) - (p.needs === p.leaves ? 1 : 0) === 0;
}

/**
 * For each op from `firstCrashed` on (the crashed ones, in the search's id order): the ids of the other ops
 * that need the state it leaves, all of them completed ops (ids below `firstCrashed`); or `null` when it must
 * always be tried: it leaves no fixed state, or a crashed op needs it (whether that one will be placed is open
 * to the end, and the search's memo key does not always say which crashed ops are placed).
 */
export function neededBy(model: AnyModel, ops: Operation[], firstCrashed: number): (Int32Array | null)[] {
  const out: (Int32Array | null)[] = [];
  if (!model.footprint) return ops.slice(firstCrashed).map(() => null);
  const prints = ops.map((op) => model.footprint!(op.input, op.output));
  const byNeed = new Map<string, number[]>();
  prints.forEach((p, id) => {
    if (p.needs === undefined) return;
    const list = byNeed.get(p.needs);
    if (list) list.push(id);
    else byNeed.set(p.needs, [id]);
  });
  for (let id = firstCrashed; id < ops.length; id++) {
    const leaves = prints[id].leaves;
    if (leaves === undefined) {
      out.push(null);
      continue;
    }
    // Latest call first: the ops still ahead of the search are the likeliest to be unplaced, which ends the scan.
    const ids = (byNeed.get(leaves) ?? []).filter((j) => j !== id);
    out.push(ids.some((j) => j >= firstCrashed) ? null : Int32Array.from(ids));
  }
  return out;
}
