import type { Op, ProcessId } from '../../history/op.ts';
import type { FinalRead, LedgerRow } from '../../history/bank.ts';

/**
 * Literal histories for tests, written as the journal would record them: one event per line. `history(...)`
 * assigns `index` and, unless an event sets one, `time` = index ms, so tests read as a timeline.
 */
export type Event = Omit<Op, 'index' | 'time'> & { time?: number };

export function history(...events: (Event | Event[])[]): Op[] {
  return events.flat().map((e, index) => ({ ...e, index, time: e.time ?? index * 1_000_000 }));
}

export const invoke = (process: ProcessId, f: string, value: unknown = null): Event => ({
  process,
  type: 'invoke',
  f,
  value,
});
export const ok = (process: ProcessId, f: string, value: unknown = null): Event => ({ process, type: 'ok', f, value });
export const fail = (process: ProcessId, f: string, value: unknown = null, error?: string): Event => ({
  process,
  type: 'fail',
  f,
  value,
  ...(error ? { error } : {}),
});
export const info = (process: ProcessId, f: string, value: unknown = null, error = 'timeout'): Event => ({
  process,
  type: 'info',
  f,
  value,
  error,
});

/** A ledger row on account 0 unless told otherwise. */
export function row(
  writeId: number,
  process: number,
  from: number,
  to: number,
  basedOn: number,
  token: string | null = null,
  account = 0,
): LedgerRow {
  return { writeId, account, process, token, from, to, delta: to - from, basedOn };
}

/** The harness's final read of one account: invoke + ok. */
export function finalRead(
  account: number,
  initialBalance: number,
  balance: number,
  ledger: LedgerRow[],
  fence: string | null = null,
): Event[] {
  const value: FinalRead = { account, initialBalance, balance, version: ledger.length, fence, ledger };
  return [invoke('harness', 'final-read', { account }), ok('harness', 'final-read', value)];
}

/** A client's read of `account` returning `balance` with `lastWriteId`, as invoke + ok. */
export function read(process: number, balance: number, lastWriteId: number, account = 0): Event[] {
  return [invoke(process, 'read', { account }), ok(process, 'read', { account, balance, version: 0, lastWriteId })];
}

/** The invoke value of a write from `from` to `to` based on write `basedOn`. */
export function writeValue(
  from: number,
  to: number,
  basedOn: number,
  token?: string,
  account = 0,
): Record<string, unknown> {
  return { account, from, to, delta: to - from, basedOn, ...(token !== undefined ? { token } : {}) };
}

/**
 * The textbook lost update: clients 0 and 1 both read 100; 0 writes 110 (write #1), then 1 writes 120 (write #2)
 * from its stale read, erasing #1. History indexes: reads 0–3, write #1 at 4/5, write #2 at 6/7.
 */
export function twoWritersLoseOne(): Op[] {
  return history(
    read(0, 100, 0),
    read(1, 100, 0),
    invoke(0, 'write', writeValue(100, 110, 0)),
    ok(0, 'write', { ...writeValue(100, 110, 0), writeId: 1 }),
    invoke(1, 'write', writeValue(100, 120, 0)),
    ok(1, 'write', { ...writeValue(100, 120, 0), writeId: 2 }),
    finalRead(0, 100, 120, [row(1, 0, 100, 110, 0), row(2, 1, 100, 120, 0)]),
  );
}
