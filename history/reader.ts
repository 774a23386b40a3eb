import fs from 'node:fs';
import { CLIENT_EXIT_NOTE } from './client-exit.ts';
import { parseHistory, parseHistoryTolerant, type ParsedHistory, type TolerantParse } from './codec.ts';
import type { Op, ProcessId } from './op.ts';

export { parseHistory, type ParsedHistory } from './codec.ts';

export interface HistoryProblem {
  index: number;
  problem: string;
}

/** A history file, strictly (see codec.ts): what a checker reads. */
export function readHistory(file: string): ParsedHistory {
  return parseHistory(fs.readFileSync(file, 'utf8'));
}

/** A history file, tolerantly (see codec.ts): what a page reads. */
export function readHistoryTolerant(file: string): TolerantParse {
  return parseHistoryTolerant(fs.readFileSync(file, 'utf8'));
}

/**
 * The journal's invariants: indexes dense and increasing, no completion without an open invoke of the same
 * process and f, no second invoke while one is open. Nemesis records and client-exit notes (type `info`
 * without an invoke) are exempt.
 */
export function validateHistory(ops: readonly Op[]): HistoryProblem[] {
  const problems: HistoryProblem[] = [];
  const open = new Map<ProcessId, Op>();
  ops.forEach((op, i) => {
    if (op.index !== i) problems.push({ index: op.index, problem: `index ${op.index} at position ${i}` });
    if (op.process === 'nemesis') return;
    // A client that died with nothing open leaves a bare note, not a completion (see client-exit.ts).
    if (op.f === CLIENT_EXIT_NOTE && op.type === 'info') return;
    const pending = open.get(op.process);
    if (op.type === 'invoke') {
      if (pending)
        problems.push({
          index: op.index,
          problem: `process ${op.process} invoked ${op.f} while its ${pending.f} (index ${pending.index}) is still open`,
        });
      open.set(op.process, op);
    } else {
      if (!pending)
        problems.push({ index: op.index, problem: `${op.type} ${op.f} of process ${op.process} without an invoke` });
      else if (pending.f !== op.f)
        problems.push({
          index: op.index,
          problem: `${op.type} ${op.f} of process ${op.process} completes an invoke of ${pending.f} (index ${pending.index})`,
        });
      open.delete(op.process);
    }
  });
  return problems;
}
