import fs from 'node:fs';
import { CLIENT_EXIT_NOTE } from './client-exit.ts';
import type { Op, ProcessId } from './op.ts';

export interface HistoryProblem {
  index: number;
  problem: string;
}

export interface ParsedHistory {
  ops: Op[];
  /** A last line cut short by a crash mid-write is dropped and reported here rather than failing the read. */
  truncatedTail: boolean;
}

/** Parse JSONL text. Malformed lines other than a cut-off last line are errors (the file is not ours, or corrupt). */
export function parseHistory(text: string): ParsedHistory {
  const lines = text.split('\n');
  const ops: Op[] = [];
  let truncatedTail = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      ops.push(JSON.parse(line) as Op);
    } catch {
      const isLast = lines.slice(i + 1).every((l) => !l.trim());
      if (isLast) truncatedTail = true;
      else throw new Error(`history line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
    }
  }
  return { ops, truncatedTail };
}

export function readHistory(file: string): ParsedHistory {
  return parseHistory(fs.readFileSync(file, 'utf8'));
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

export interface OpPair {
  invoke: Op;
  /** null when the history ended before the op completed (it may or may not have taken effect). */
  completion: Op | null;
}

/** Invocations paired with their completions, in invocation order. Nemesis records are not paired. */
export function pairOps(ops: readonly Op[]): OpPair[] {
  const pairs: OpPair[] = [];
  const open = new Map<ProcessId, OpPair>();
  for (const op of ops) {
    if (op.process === 'nemesis') continue;
    if (op.type === 'invoke') {
      const pair = { invoke: op, completion: null };
      pairs.push(pair);
      open.set(op.process, pair);
    } else {
      const pair = open.get(op.process);
      if (pair) {
        pair.completion = op;
        open.delete(op.process);
      }
    }
  }
  return pairs;
}
