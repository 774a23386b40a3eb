import type { AnyModel, Operation } from '../model.ts';
import { counterexample, type Counterexample, type DeadEnd, type Frame } from './counterexample.ts';
import { EventList } from './events.ts';
import { Linearized } from './placed.ts';

/** What the search of one partition found, and how hard it worked. */
export type Outcome = { explored: number; configurations: number } & (
  | { valid: true }
  | { valid: 'unknown'; cause: 'timeout' | 'memory' }
  | { valid: false; counterexample: Counterexample }
);

export interface Budget {
  deadline: number;
  now: () => number;
  /** Shared by all partitions, so the cap bounds the whole check. */
  configurationsLeft: number;
}

/**
 * Searches one partition for a linearization (the loop alone; the driver in linearizable.ts splits the history
 * and sums the outcomes). See linearizable.ts for the algorithm.
 *
 * Ops that never completed (`return: Infinity`) have their returns after every real one, so they never block:
 * when the search reaches one of those returns, every completed op has been placed.
 */
export function searchPartition(model: AnyModel, input: Operation[], budget: Budget, prune: boolean): Outcome {
  const hash = model.hash ?? ((s: unknown) => JSON.stringify(s) ?? 'undefined');
  // Ids: completed ops first in call order, then the never-completed ones. The memo key depends on it (placed.ts).
  const completed = input.filter((op) => op.return !== Infinity).sort((a, b) => a.call - b.call);
  const pending = input.filter((op) => op.return === Infinity).sort((a, b) => a.call - b.call);
  const ops = completed.concat(pending);
  const nOk = completed.length;
  const events = new EventList(ops);
  const nxt = events.next;
  const placed = new Linearized(model, ops, nOk, prune);

  const cache = new Set<string>();
  let state: unknown = model.init();
  let top: Frame | null = null;
  // What the next op placed must need (see `Linearized.lazyLeaves`), or null.
  let awaiting: string | null = null;
  // The deepest dead end: the longest linearizable prefix, and the op whose return stopped it.
  let best: DeadEnd | null = null;
  let explored = 0;
  let entry = nxt[0];

  while (entry !== -1) {
    if ((explored++ & 1023) === 0 && budget.now() > budget.deadline) {
      return { valid: 'unknown', cause: 'timeout', explored, configurations: cache.size };
    }
    const id = (entry - 1) >> 1;
    if (entry & 1) {
      if ((id >= nOk && placed.isDead(id)) || (awaiting !== null && placed.needs(id) !== awaiting)) {
        entry = nxt[entry];
        continue;
      }
      const op = ops[id];
      const [ok, next] = model.step(state, op.input, op.output);
      if (ok) {
        const savedFirst = placed.first;
        placed.add(id);
        const nextAwaiting = placed.lazyLeaves(id);
        const key = placed.key(hash(next)) + (nextAwaiting === null ? '' : `|>${nextAwaiting}`);
        if (!cache.has(key)) {
          if (budget.configurationsLeft-- <= 0)
            return { valid: 'unknown', cause: 'memory', explored, configurations: cache.size };
          cache.add(key);
          top = { id, state, first: savedFirst, awaiting, parent: top, depth: top ? top.depth + 1 : 1 };
          state = next;
          awaiting = nextAwaiting;
          events.lift(entry);
          entry = nxt[0];
          continue;
        }
        placed.remove(id, savedFirst);
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
    // Backtrack: take the last placed op off the stack and try the call after its own.
    const frame: Frame = top;
    top = frame.parent;
    state = frame.state;
    awaiting = frame.awaiting;
    placed.remove(frame.id, frame.first);
    entry = 2 * frame.id + 1;
    events.unlift(entry);
    entry = nxt[entry];
  }
  return { valid: true, explored, configurations: cache.size };
}
