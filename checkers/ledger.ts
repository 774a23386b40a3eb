import type { Op } from '../history/op.ts';
import type { FinalRead, LedgerRow, WriteValue } from '../history/bank.ts';

/**
 * The resource's own record (the harness's `final-read` of each account after the clients stopped) and how the
 * clients' `write` ops map onto its rows. The ledger is what makes lost updates and overlaps *confirmed*: the
 * clients' ops say what they believed, the ledger says what the resource did.
 */

export interface AccountFinalRead {
  value: FinalRead;
  /** History index of the `final-read` ok op. */
  index: number;
}

/** The first successful `final-read` per account. */
export function finalReads(history: Op[]): Map<number, AccountFinalRead> {
  const reads = new Map<number, AccountFinalRead>();
  for (const op of history) {
    if (op.process !== 'harness' || op.f !== 'final-read' || op.type !== 'ok') continue;
    const value = op.value as FinalRead;
    if (!reads.has(value.account)) reads.set(value.account, { value, index: op.index });
  }
  return reads;
}

/** One client `write`, with the ledger row it produced when we can tell. */
export interface BankWrite {
  process: number;
  account: number;
  /** The invoke value: from, to, delta, token, basedOn. */
  value: WriteValue;
  outcome: 'ok' | 'fail' | 'info';
  error?: string;
  invokeIndex: number;
  invokeTime: number;
  /** `null` when the write never completed before the history ended. */
  completeIndex: number | null;
  completeTime: number | null;
  /**
   * Ledger row id of the committed write: from the ok completion, or — for an `info` write that landed anyway —
   * from the unclaimed ledger row by the same process with the same account, base and values.
   */
  writeId: number | null;
}

export function bankWrites(history: Op[], ledgers: Map<number, AccountFinalRead> = finalReads(history)): BankWrite[] {
  const writes: BankWrite[] = [];
  const open = new Map<number, Op<WriteValue>>();
  const complete = (invoke: Op<WriteValue>, op: Op | undefined): void => {
    const outcome = op === undefined ? 'info' : (op.type as BankWrite['outcome']);
    const okId = op?.type === 'ok' ? (op.value as WriteValue | null)?.writeId : undefined;
    writes.push({
      process: invoke.process as number,
      account: invoke.value.account,
      value: invoke.value,
      outcome,
      ...(op?.error !== undefined ? { error: op.error } : {}),
      invokeIndex: invoke.index,
      invokeTime: invoke.time,
      completeIndex: op ? op.index : null,
      completeTime: op ? op.time : null,
      writeId: typeof okId === 'number' ? okId : null,
    });
  };
  for (const op of history) {
    if (typeof op.process !== 'number') continue;
    if (op.type === 'invoke') {
      if (op.f === 'write') open.set(op.process, op as Op<WriteValue>);
      else open.delete(op.process);
      continue;
    }
    const invoke = open.get(op.process);
    if (!invoke) continue;
    open.delete(op.process);
    complete(invoke, op);
  }
  for (const invoke of open.values()) complete(invoke, undefined);

  // Info writes that landed: match them to ledger rows no ok write claimed.
  const claimed = new Set(writes.flatMap((w) => (w.writeId === null ? [] : [w.writeId])));
  const unclaimed = new Map<string, LedgerRow[]>();
  for (const { value } of ledgers.values()) {
    for (const row of value.ledger) {
      if (claimed.has(row.writeId)) continue;
      const key = rowKey(row.process, row.account, row.basedOn, row.to, row.delta);
      const rows = unclaimed.get(key);
      if (rows) rows.push(row);
      else unclaimed.set(key, [row]);
    }
  }
  for (const w of writes) {
    if (w.outcome !== 'info') continue;
    const row = unclaimed.get(rowKey(w.process, w.account, w.value.basedOn, w.value.to, w.value.delta))?.shift();
    if (row) w.writeId = row.writeId;
  }
  return writes;
}

function rowKey(process: number, account: number, basedOn: number, to: number, delta: number): string {
  return `${process}/${account}/${basedOn}/${to}/${delta}`;
}
