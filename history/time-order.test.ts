import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRun } from '../checkers/check-run.ts';
import { Journal } from './journal.ts';
import type { OpInput } from './op.ts';
import { readHistory, validateHistory } from './reader.ts';
import { inTimeOrder, sealInTimeOrder } from './time-order.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-time-order-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A correctly locked run, as it happened: p0 does acquire → read 100 → write 110 → release, then p1 does the
 * same from 110 to 120, then the harness reads 120 and a two-row ledger. `ms` is when each op happened.
 */
const w0 = { account: 0, from: 100, to: 110, delta: 10, basedOn: 0 };
const w1 = { account: 0, from: 110, to: 120, delta: 10, basedOn: 1 };
const happened: { ms: number; op: OpInput }[] = [
  { ms: 1, op: { process: 0, type: 'invoke', f: 'acquire', value: { account: 0 } } },
  { ms: 2, op: { process: 0, type: 'ok', f: 'acquire', value: { account: 0, attempts: 1 } } },
  { ms: 3, op: { process: 0, type: 'invoke', f: 'read', value: { account: 0 } } },
  { ms: 4, op: { process: 0, type: 'ok', f: 'read', value: { account: 0, balance: 100, version: 0, lastWriteId: 0 } } },
  { ms: 5, op: { process: 0, type: 'invoke', f: 'write', value: w0 } },
  { ms: 6, op: { process: 0, type: 'ok', f: 'write', value: { ...w0, writeId: 1 } } },
  { ms: 7, op: { process: 0, type: 'invoke', f: 'release', value: { account: 0 } } },
  { ms: 8, op: { process: 0, type: 'ok', f: 'release', value: { account: 0, released: true } } },
  { ms: 10, op: { process: 1, type: 'invoke', f: 'acquire', value: { account: 0 } } },
  { ms: 11, op: { process: 1, type: 'ok', f: 'acquire', value: { account: 0, attempts: 1 } } },
  { ms: 12, op: { process: 1, type: 'invoke', f: 'read', value: { account: 0 } } },
  {
    ms: 13,
    op: { process: 1, type: 'ok', f: 'read', value: { account: 0, balance: 110, version: 1, lastWriteId: 1 } },
  },
  { ms: 14, op: { process: 1, type: 'invoke', f: 'write', value: w1 } },
  { ms: 15, op: { process: 1, type: 'ok', f: 'write', value: { ...w1, writeId: 2 } } },
  { ms: 16, op: { process: 1, type: 'invoke', f: 'release', value: { account: 0 } } },
  { ms: 17, op: { process: 1, type: 'ok', f: 'release', value: { account: 0, released: true } } },
];
const ledger = [
  { writeId: 1, account: 0, process: 0, token: null, from: 100, to: 110, delta: 10, basedOn: 0 },
  { writeId: 2, account: 0, process: 1, token: null, from: 110, to: 120, delta: 10, basedOn: 1 },
];
const finalRead: OpInput[] = [
  { process: 'harness', type: 'invoke', f: 'final-read', value: { account: 0 } },
  {
    process: 'harness',
    type: 'ok',
    f: 'final-read',
    value: { account: 0, initialBalance: 100, balance: 120, version: 2, fence: null, ledger },
  },
];

/**
 * p0's messages reach the harness late — a busy event loop, or p0 stopped between its stamp and its send — so
 * the harness receives all of p1's first, then p0's, with each process's own messages still in order (IPC is a
 * FIFO pipe), and the two processes' messages interleaved out of time order at the seam.
 */
const arrival = [...happened.slice(8, 12), happened[0], ...happened.slice(12), ...happened.slice(1, 8)];

describe('client-stamped ops, delivered late and out of order', () => {
  it('are journaled as they arrive and sealed in the order they happened; the checkers see no violation', () => {
    const file = path.join(dir, 'stamped.jsonl');
    const origin = 1_000_000_000n;
    const journal = new Journal(file, origin);
    for (const { ms, op } of arrival) journal.appendStamped(op, origin + BigInt(ms * 1e6));
    // The harness's own ops are stamped on append: after every client op here.
    for (const op of finalRead) journal.append(op);
    journal.close();

    // As recorded: arrival order, true times.
    const recorded = readHistory(file).ops;
    expect(recorded.slice(0, 4).map((o) => o.process)).toEqual([1, 1, 1, 1]);

    sealInTimeOrder(file);
    const { ops } = readHistory(file);
    expect(ops.slice(0, happened.length).map((o) => [o.process, o.type, o.f, o.time])).toEqual(
      happened.map(({ ms, op }) => [op.process, op.type, op.f, ms * 1e6]),
    );
    expect(ops.map((o) => o.index)).toEqual(ops.map((_, i) => i));
    expect(validateHistory(ops)).toEqual([]);
    const r = checkRun(ops, { fencing: false });
    expect(r.checkers.linearizable.valid).toBe(true);
    expect(r.checkers['mutual-exclusion'].valid).toBe(true);
    expect(r.valid).toBe(true);
  });

  it('stamped on arrival instead (the old harness), the same run shows a violation that did not happen', () => {
    const file = path.join(dir, 'arrival.jsonl');
    const journal = new Journal(file);
    for (const { op } of arrival) journal.append(op);
    for (const op of finalRead) journal.append(op);
    journal.close();
    const ops = inTimeOrder(readHistory(file).ops);
    // p1 "read 110" before p0's write of 110 was even invoked: not linearizable, and the lock looks broken.
    expect(checkRun(ops, { fencing: false }).checkers.linearizable.valid).toBe(false);
  });

  it('inTimeOrder keeps arrival order for equal times and leaves ordered input as it is', () => {
    const op = (index: number, time: number, process: number) => ({
      index,
      time,
      process,
      type: 'invoke' as const,
      f: 'read',
      value: null,
    });
    const ordered = [op(0, 5, 0), op(1, 5, 1), op(2, 7, 2)];
    expect(inTimeOrder(ordered)).toEqual(ordered);
    expect(inTimeOrder([op(0, 9, 0), op(1, 5, 1), op(2, 5, 2)]).map((o) => [o.index, o.process])).toEqual([
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
  });
});
