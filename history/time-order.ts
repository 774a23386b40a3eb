import fs from 'node:fs';
import type { Op } from './op.ts';
import { readHistory } from './reader.ts';

/**
 * Ops in the order they happened: by `time`, then by arrival (`index`) for equal times, re-indexed densely.
 *
 * Clients stamp their own ops, so the journal can receive them out of time order (a busy harness event loop, a
 * client SIGSTOPped between its stamp and its send). Within one process arrival order is send order (IPC is a
 * FIFO pipe) and its stamps only grow, so the stable sort never reorders a process's own ops: every invoke stays
 * before its completion, and the history's invariants hold. Already-ordered input comes back unchanged.
 */
export function inTimeOrder(ops: readonly Op[]): Op[] {
  return [...ops]
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map((op, index) => (op.index === index ? op : { ...op, index }));
}

/**
 * Rewrites a closed history file in time order (write a sibling, then rename, so a crash leaves either the
 * journal as recorded or the sorted copy, never half of one). The journal stays append-as-it-happens during
 * the run; this runs once after it, so results, report and the history file all use the same indexes.
 * A history a crash left unsorted is sorted by whoever reads it for checking (`check <run-dir>`).
 */
export function sealInTimeOrder(file: string): void {
  const { ops } = readHistory(file);
  const ordered = inTimeOrder(ops);
  if (ordered.every((op, i) => op === ops[i])) return;
  const tmp = `${file}.sorting`;
  // Written in batches, never as one string: a long run's history is longer than V8's longest string.
  fs.rmSync(tmp, { force: true });
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    for (let i = 0; i < ordered.length; i += 10_000)
      fs.writeSync(
        fd,
        ordered
          .slice(i, i + 10_000)
          .map((op) => `${JSON.stringify(op)}\n`)
          .join(''),
      );
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
