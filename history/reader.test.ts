import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from './journal.ts';
import type { Op } from './op.ts';
import { History } from './history.ts';
import { parseHistory, readHistory, validateHistory } from './reader.ts';

const op = (
  index: number,
  process: Op['process'],
  type: Op['type'],
  f: string,
  value: unknown = null,
  time = index * 10,
): Op => ({ index, time, process, type, f, value });

describe('validateHistory', () => {
  it('accepts a well-formed history with an info and a process change', () => {
    const h = [
      op(0, 0, 'invoke', 'read'),
      op(1, 1, 'invoke', 'write'),
      op(2, 0, 'ok', 'read', 5),
      op(3, 1, 'info', 'write'),
      op(4, 6, 'invoke', 'read'),
      op(5, 'nemesis', 'info', 'pause-holder'),
    ];
    expect(validateHistory(h)).toEqual([]);
  });

  it('flags a completion without an invoke', () => {
    expect(validateHistory([op(0, 0, 'ok', 'read')])).toEqual([
      { index: 0, problem: 'ok read of process 0 without an invoke' },
    ]);
  });

  it('flags a second invoke while one is open', () => {
    const problems = validateHistory([op(0, 0, 'invoke', 'read'), op(1, 0, 'invoke', 'write')]);
    expect(problems[0].problem).toMatch(/invoked write while its read \(index 0\) is still open/);
  });

  it('flags a completion of a different f, and gaps in the index', () => {
    expect(validateHistory([op(0, 0, 'invoke', 'read'), op(1, 0, 'ok', 'write')])[0].problem).toMatch(
      /completes an invoke of read/,
    );
    expect(validateHistory([op(0, 0, 'invoke', 'read'), op(2, 0, 'ok', 'read')])[0].problem).toMatch(
      /index 2 at position 1/,
    );
  });
});

describe('History pairs', () => {
  it('pairs completions with their invocations and leaves unfinished ones open', () => {
    const { pairs } = History.of([
      op(0, 0, 'invoke', 'read'),
      op(1, 1, 'invoke', 'write'),
      op(2, 0, 'ok', 'read', 5),
      op(3, 'nemesis', 'info', 'clock'),
    ]);
    expect(pairs).toHaveLength(2);
    expect(pairs[0].completion?.index).toBe(2);
    expect(pairs[1].completion).toBeNull();
  });
});

describe('Journal + readHistory', () => {
  it('writes one line per op as it happens, with dense indexes and monotonic times', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-journal-'));
    const file = path.join(dir, 'history.jsonl');
    const j = new Journal(file);
    const seen: number[] = [];
    j.onOp((o) => seen.push(o.index));
    j.append({ process: 0, type: 'invoke', f: 'read', value: { account: 0 } });
    // Readable before close: a crash right now keeps this op.
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    j.append({ process: 0, type: 'fail', f: 'read', value: { account: 0 }, error: 'timeout' });
    j.close();
    const { ops, truncatedTail } = readHistory(file);
    expect(truncatedTail).toBe(false);
    expect(ops.map((o) => o.index)).toEqual([0, 1]);
    expect(seen).toEqual([0, 1]);
    expect(ops[1].time).toBeGreaterThanOrEqual(ops[0].time);
    expect(ops[1].error).toBe('timeout');
    expect(validateHistory(ops)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });

  it('drops a last line cut off by a crash and says so; rejects garbage elsewhere', () => {
    const good = JSON.stringify(op(0, 0, 'invoke', 'read'));
    expect(parseHistory(`${good}\n{"index":1,"ti`)).toMatchObject({ truncatedTail: true, ops: [{ index: 0 }] });
    expect(() => parseHistory(`{"index":1,"ti\n${good}\n`)).toThrow(/line 1 is not JSON/);
  });
});
