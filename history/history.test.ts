import { describe, expect, it } from 'vitest';
import { History } from './history.ts';
import type { Op } from './op.ts';

let next = 0;
const op = (process: Op['process'], type: Op['type'], f: string, value: unknown = null, error?: string): Op => {
  const index = next++;
  return { index, time: index * 1_000_000, process, type, f, value, ...(error ? { error } : {}) };
};
const nemesis = (f: string, phase: 'start' | 'end' | undefined, targets: string[], extra = {}) =>
  op('nemesis', 'info', f, { ...(phase ? { phase } : {}), targets, ...extra });

function bankHistory(): Op[] {
  next = 0;
  const write = (from: number, to: number, basedOn: number) => ({ account: 0, from, to, delta: to - from, basedOn });
  return [
    /* 0 */ op(0, 'invoke', 'acquire', { account: 0 }),
    /* 1 */ nemesis('pause-holder', 'start', ['client p1 (pid 4242)'], { params: { durationMs: 3 }, note: 'aimed' }),
    /* 2 */ op(0, 'ok', 'acquire', { account: 0, token: '7' }),
    /* 3 */ op(1, 'invoke', 'acquire', { account: 0 }),
    /* 4 */ op(0, 'invoke', 'write', write(100, 110, 0)),
    /* 5 */ op(0, 'ok', 'write', { ...write(100, 110, 0), writeId: 1 }),
    /* 6 */ nemesis('pause-holder', 'end', ['client p1 (pid 4242)'], { note: 'resumed' }),
    /* 7 */ op(1, 'info', 'acquire', { account: 0 }, 'timeout'),
    /* 8 */ op(5, 'invoke', 'write', write(110, 130, 1)),
    /* 9 */ op(2, 'info', 'client-exit', { slot: 2, code: 1, signal: null, lastLines: [] }, 'client-exited'),
    /* 10 */ nemesis('clock', 'start', ['redis[0]']),
    /* 11 */ op('harness', 'invoke', 'final-read', { account: 0 }),
    /* 12 */ op('harness', 'ok', 'final-read', {
      account: 0,
      initialBalance: 100,
      balance: 130,
      version: 2,
      fence: null,
      ledger: [
        { writeId: 1, account: 0, process: 0, token: '7', from: 100, to: 110, delta: 10, basedOn: 0 },
        { writeId: 2, account: 0, process: 5, token: null, from: 110, to: 130, delta: 20, basedOn: 1 },
      ],
    }),
  ];
}

describe('History', () => {
  const h = History.of(bankHistory());

  it('pairs invocations with completions both ways, by op or by index, and skips nemesis records', () => {
    expect(h.pairs.map((p) => [p.invoke.index, p.completion?.index ?? null])).toEqual([
      [0, 2],
      [3, 7],
      [4, 5],
      [8, null],
      [11, 12],
    ]);
    expect(h.completionOf(4)?.index).toBe(5);
    expect(h.completionOf(h.ops[8])).toBeNull();
    expect(h.completionOf(5)).toBeUndefined(); // a completion is not an invocation
    expect(h.invokeOf(7)?.index).toBe(3);
    expect(h.invokeOf(h.ops[12])?.index).toBe(11);
    expect(h.invokeOf(1)).toBeUndefined();
    expect(h.op(6)?.f).toBe('pause-holder');
  });

  it('lists the invocations the history ended before, and keeps client-exit notes apart from completions', () => {
    expect(h.openInvokes.map((o) => o.index)).toEqual([8]);
    expect(h.notes.map((o) => o.index)).toEqual([9]);
    expect(h.orphans).toEqual([]);
    expect(h.reinvoked).toEqual([]);
  });

  it('reads fault windows: targets, params and both notes, and an unhealed fault open to the end', () => {
    expect(h.faults).toEqual([
      {
        f: 'pause-holder',
        start: 1_000_000,
        end: 6_000_000,
        startMs: 1,
        endMs: 6,
        targets: ['client p1 (pid 4242)'],
        params: { durationMs: 3 },
        endParams: {},
        note: 'aimed; resumed',
        processes: [1],
        pids: [4242],
        startIndex: 1,
        endIndex: 6,
      },
      {
        f: 'clock',
        start: 10_000_000,
        end: null,
        startMs: 10,
        endMs: null,
        targets: ['redis[0]'],
        params: {},
        processes: [],
        pids: [],
        startIndex: 10,
      },
    ]);
  });

  it('pairs an end with the start of the same targets, and reads an end without a start and a phaseless record as instants', () => {
    next = 0;
    const faults = History.of([
      nemesis('partition', 'start', ['a']),
      nemesis('partition', 'start', ['b']),
      nemesis('partition', 'end', ['b']),
      nemesis('partition', 'end', ['a']),
      nemesis('kill', 'end', ['etcd[1]']),
      nemesis('clock', undefined, []),
    ]).faults;
    expect(faults.map((w) => [w.f, w.targets.join(), w.startIndex ?? null, w.endIndex, w.note ?? null])).toEqual([
      ['partition', 'a', 0, 3, null],
      ['partition', 'b', 1, 2, null],
      ['kill', 'etcd[1]', null, 4, 'end without a start'],
      ['clock', '', 5, 5, null],
    ]);
  });

  it('has the bank view: final reads, writes with their ledger rows (an info write that landed included), acquires', () => {
    expect([...h.bank.finalReads.keys()]).toEqual([0]);
    expect(h.bank.finalReads.get(0)?.index).toBe(12);
    expect(h.bank.writes.map((w) => [w.process, w.outcome, w.completeIndex, w.writeId])).toEqual([
      [0, 'ok', 5, 1],
      [5, 'info', null, 2], // never completed, but the ledger has its row
    ]);
    expect(
      h.bank.acquires.map((p) => [p.invoke.process, p.completion?.type ?? null, p.completion?.value.token]),
    ).toEqual([
      [0, 'ok', '7'],
      [1, 'info', undefined],
    ]);
  });

  it('is built once: History.of a History is the same value, and its parts are kept', () => {
    expect(History.of(h)).toBe(h);
    expect(h.bank).toBe(h.bank);
    expect(h.faults).toBe(h.faults);
  });

  it('tolerates a malformed history: an orphan completion, and a second invoke while one is open', () => {
    next = 0;
    const bad = History.of([op(0, 'ok', 'read', 5), op(1, 'invoke', 'read'), op(1, 'invoke', 'write')]);
    expect(bad.orphans.map((o) => o.index)).toEqual([0]);
    expect(bad.reinvoked.map((r) => [r.invoke.index, r.pending.index])).toEqual([[2, 1]]);
    expect(bad.openInvokes.map((o) => o.index)).toEqual([1, 2]);
  });
});
