import type { Operation } from '../model.ts';

/**
 * The search's event list: a doubly linked list of call and return events in history order, from which the
 * search lifts an op's two events when it linearizes the op and puts them back when it backtracks.
 *
 * Node 0 is the list head; op id i has its call at node 2i+1 and its return at node 2i+2, so a node's parity
 * says which it is and `(node - 1) >> 1` is its op.
 */
export class EventList {
  /** Following node, or -1 after the last. */
  readonly next: Int32Array;
  /** Preceding node (0 for the first). */
  readonly prev: Int32Array;

  constructor(ops: Operation[]) {
    const n = ops.length;
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
    this.next = new Int32Array(2 * n + 1).fill(-1);
    this.prev = new Int32Array(2 * n + 1).fill(-1);
    let last = 0;
    for (const node of nodes) {
      this.next[last] = node;
      this.prev[node] = last;
      last = node;
    }
  }

  /** Unlinks the op whose call is node `call`, with its return (node `call + 1`). */
  lift(call: number): void {
    const { next: nxt, prev: prv } = this;
    const ret = call + 1;
    nxt[prv[call]] = nxt[call];
    if (nxt[call] !== -1) prv[nxt[call]] = prv[call];
    nxt[prv[ret]] = nxt[ret];
    if (nxt[ret] !== -1) prv[nxt[ret]] = prv[ret];
  }

  /** Undoes `lift(call)`; the lifted nodes kept their own links, so they know where they go back. */
  unlift(call: number): void {
    const { next: nxt, prev: prv } = this;
    const ret = call + 1;
    nxt[prv[ret]] = ret;
    if (nxt[ret] !== -1) prv[nxt[ret]] = ret;
    nxt[prv[call]] = call;
    if (nxt[call] !== -1) prv[nxt[call]] = call;
  }
}
