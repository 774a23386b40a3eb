import fs from 'node:fs';
import { CLIENT_EXIT_NOTE } from './client-exit.ts';
import { StringDecoder } from 'node:string_decoder';
import { HistoryDecoder, strict, type BadLine, type ParsedHistory, type TolerantParse } from './codec.ts';
import type { Op, ProcessId } from './op.ts';

export { parseHistory, type ParsedHistory } from './codec.ts';

export interface HistoryProblem {
  index: number;
  problem: string;
}

/** How much of a history file is read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * Feeds a file to a decoder line by line, in chunks: never the whole file as one string, which V8 cannot make past
 * 512 MiB (a day-long run writes more) — the run would end 255 with no verdict.
 */
export function decodeHistoryFile(file: string, decoder: HistoryDecoder, chunkBytes = CHUNK_BYTES): ParsedHistory {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(chunkBytes);
    const utf8 = new StringDecoder('utf8'); // a character split across two chunks is joined, not mangled
    let rest = '';
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const lines = (rest + utf8.write(buf.subarray(0, n))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) decoder.line(line);
    }
    decoder.line(rest + utf8.end());
    return decoder.end();
  } finally {
    fs.closeSync(fd);
  }
}

/** A history file, strictly (see codec.ts): what a checker reads. */
export function readHistory(file: string, chunkBytes?: number): ParsedHistory {
  return decodeHistoryFile(file, new HistoryDecoder(strict), chunkBytes);
}

/** A history file, tolerantly (see codec.ts): what a page reads. */
export function readHistoryTolerant(file: string, chunkBytes?: number): TolerantParse {
  const badLines: BadLine[] = [];
  const parsed = decodeHistoryFile(file, new HistoryDecoder((bad) => badLines.push(bad)), chunkBytes);
  return { ...parsed, badLines };
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
