import { describe, expect, it } from 'vitest';
import type { OpInput } from '../history/op.ts';
import { INVOKE_HOLD_MS, OP_BATCH_MS, OpOutbox, unsentOps, type SentOp } from './op-outbox.ts';

/** An outbox on a hand-driven timer, recording what it wrote ahead and sent, in one event list. */
function harnessOf(holdMs = INVOKE_HOLD_MS, batchMs: number | null = null) {
  const events: string[] = [];
  const file: string[] = [];
  const sent: SentOp[][] = [];
  let timer: { ms: number; fn: () => void } | null = null;
  // The clock an invoke is stamped again with after its write-ahead: 1000, 2000, … (the ops' own stamps are small).
  let clock = 0n;
  const outbox = new OpOutbox(
    {
      writeAhead: (line) => (file.push(line), events.push(`file seq ${(JSON.parse(line) as SentOp).seq}`)),
      send: (ops) => (sent.push(ops), events.push(`send ${ops.map((o) => `${o.op.type}#${o.seq}`).join(',')}`)),
      setTimer: (ms, fn) => {
        timer = { ms, fn };
        events.push(`timer ${ms}`);
        return () => {
          timer = null;
          events.push('timer cancelled');
        };
      },
      now: () => {
        events.push('now');
        return (clock += 1000n);
      },
    },
    { holdMs, batchMs },
  );
  return {
    outbox,
    events,
    file,
    sent,
    fire: () => {
      const due = timer;
      timer = null;
      due?.fn();
    },
    armed: () => timer !== null,
  };
}

const op = (type: OpInput['type'], f = 'acquire', process = 0): OpInput => ({
  process,
  type,
  f,
  value: { account: 0 },
});

describe('OpOutbox: invokes written ahead and held, completions sent at once', () => {
  it('writes an invoke to the file before anything is sent, and sends it with its completion in one message', () => {
    const h = harnessOf();
    h.outbox.emit(op('invoke'), 100n);
    // The call starts now: the invoke is on disk (the kernel's), and nothing woke the harness.
    expect(h.events).toEqual(['file seq 1', `timer ${INVOKE_HOLD_MS}`]);
    expect(h.sent).toEqual([]);
    h.outbox.emit(op('ok'), 250n);
    expect(h.events).toEqual(['file seq 1', `timer ${INVOKE_HOLD_MS}`, 'timer cancelled', 'send invoke#1,ok#2']);
    expect(h.sent).toEqual([
      [
        { seq: 1, op: op('invoke'), at: '100' },
        { seq: 2, op: op('ok'), at: '250' },
      ],
    ]);
    // Completions never go to the file: only an invoke can be missing after a death.
    expect(h.file).toEqual([`${JSON.stringify({ seq: 1, op: op('invoke'), at: '100' })}\n`]);
  });

  it('stamps an invoke whose call starts next again after its write-ahead: the file keeps the first stamp', () => {
    for (const batchMs of [null, OP_BATCH_MS]) {
      const h = harnessOf(INVOKE_HOLD_MS, batchMs);
      h.outbox.emit(op('invoke'), 100n, true);
      // The write, then the second stamp, then nothing until the call: the write is outside the op's interval.
      expect(h.events.slice(0, 2)).toEqual(['file seq 1', 'now']);
      expect((JSON.parse(h.file[0]) as SentOp).at).toBe('100');
      h.outbox.emit(op('ok'), 2500n);
      h.outbox.flush();
      expect(h.sent.flat().map((s) => `${s.op.type}@${s.at}`)).toEqual(['invoke@1000', 'ok@2500']);
      // Without beforeCall (an invoke stamped when it happened, sent after the fact: a failed connect) it keeps its stamp.
      h.outbox.emit(op('invoke', 'connect'), 3000n);
      h.outbox.flush();
      expect(h.sent.at(-1)!.map((s) => s.at)).toEqual(['3000']);
      expect(h.events.filter((e) => e === 'now').length).toBe(1);
    }
  });

  it('sends a held invoke alone when its call outlasts the hold, and its completion later on its own', () => {
    const h = harnessOf(10);
    h.outbox.emit(op('invoke', 'write'), 1n);
    h.fire();
    expect(h.sent).toEqual([[{ seq: 1, op: op('invoke', 'write'), at: '1' }]]);
    expect(h.armed()).toBe(false);
    h.outbox.emit(op('info', 'write'), 9n);
    expect(h.sent[1]).toEqual([{ seq: 2, op: op('info', 'write'), at: '9' }]);
  });

  it("keeps one client's order across its watchdog's ops, with one timer for every held invoke", () => {
    const h = harnessOf();
    h.outbox.emit(op('invoke', 'read', 0), 1n);
    h.outbox.emit(op('invoke', 'renew', 1_000_000), 2n);
    h.outbox.emit(op('ok', 'renew', 1_000_000), 3n);
    h.outbox.emit(op('ok', 'read', 0), 4n);
    expect(h.events.filter((e) => e === `timer ${INVOKE_HOLD_MS}`).length).toBe(1);
    expect(h.sent.map((m) => m.map((s) => `${s.op.f} ${s.op.type} #${s.seq}`))).toEqual([
      ['read invoke #1', 'renew invoke #2', 'renew ok #3'],
      ['read ok #4'],
    ]);
  });

  it('flush sends what is held and disarms the hold (before `stopped`, before a crash exit)', () => {
    const h = harnessOf();
    h.outbox.flush();
    expect(h.sent).toEqual([]);
    h.outbox.emit(op('invoke', 'release'), 5n);
    h.outbox.flush();
    expect(h.sent).toEqual([[{ seq: 1, op: op('invoke', 'release'), at: '5' }]]);
    expect(h.armed()).toBe(false);
  });
});

describe('OpOutbox with batchMs (no fault of the run aims by ops): every op written ahead, sent together', () => {
  it('writes each op to the file as it is emitted and sends nothing until the batch is due', () => {
    const h = harnessOf(INVOKE_HOLD_MS, OP_BATCH_MS);
    h.outbox.emit(op('invoke'), 1n);
    h.outbox.emit(op('ok'), 2n);
    h.outbox.emit(op('invoke', 'read'), 3n);
    h.outbox.emit(op('ok', 'read'), 4n);
    // Completions too are on disk before anything is sent: a death now loses none of them.
    expect(h.events).toEqual(['file seq 1', `timer ${OP_BATCH_MS}`, 'file seq 2', 'file seq 3', 'file seq 4']);
    expect(h.sent).toEqual([]);
    h.fire();
    expect(h.sent.map((m) => m.map((s) => `${s.op.f} ${s.op.type} #${s.seq}`))).toEqual([
      ['acquire invoke #1', 'acquire ok #2', 'read invoke #3', 'read ok #4'],
    ]);
    expect(h.file.map((l) => (JSON.parse(l) as SentOp).seq)).toEqual([1, 2, 3, 4]);
    // The next op arms the next batch.
    h.outbox.emit(op('invoke', 'write'), 5n);
    expect(h.events.at(-1)).toBe(`timer ${OP_BATCH_MS}`);
  });

  it('flush sends the batch at once and disarms it (before `stopped`)', () => {
    const h = harnessOf(INVOKE_HOLD_MS, OP_BATCH_MS);
    h.outbox.emit(op('invoke', 'release'), 5n);
    h.outbox.emit(op('ok', 'release'), 6n);
    h.outbox.flush();
    expect(h.sent).toEqual([
      [
        { seq: 1, op: op('invoke', 'release'), at: '5' },
        { seq: 2, op: op('ok', 'release'), at: '6' },
      ],
    ]);
    expect(h.armed()).toBe(false);
  });
});

describe('unsentOps: what a dead client wrote ahead and never sent', () => {
  const line = (seq: number, type: OpInput['type'] = 'invoke') =>
    JSON.stringify({ seq, op: op(type), at: String(seq) });

  it('returns the ops past the last seq the harness received, in order', () => {
    const text = [line(1), line(3), line(6), ''].join('\n');
    expect(unsentOps(text, 3).map((s) => s.seq)).toEqual([6]);
    expect(unsentOps(text, 0).map((s) => s.seq)).toEqual([1, 3, 6]);
    expect(unsentOps(text, 6)).toEqual([]);
  });

  it("returns a batching client's completions with their invokes", () => {
    const text = [line(1), line(2, 'ok'), line(3), line(4, 'fail'), line(5), ''].join('\n');
    expect(unsentOps(text, 1).map((s) => `${s.op.type} #${s.seq}`)).toEqual([
      'ok #2',
      'invoke #3',
      'fail #4',
      'invoke #5',
    ]);
  });

  it('skips a torn last line (the process died inside the write) and lines that are no op', () => {
    const text = `${line(1)}\n{"seq":2}\n${line(3).slice(0, 17)}`;
    expect(unsentOps(text, 0).map((s) => s.seq)).toEqual([1]);
    expect(unsentOps('', 0)).toEqual([]);
  });
});
