import type { AcquireOk, FinalRead, LedgerRow, WriteValue } from './bank.ts';
import type { History, OpPair } from './history.ts';
import type { Op } from './op.ts';

/**
 * The bank workload's facts as every checker needs them, computed once per history: the resource's own record
 * (the harness's `final-read` of each account after the clients stopped) and how the clients' `write` ops map
 * onto its rows. The ledger is what makes lost updates and overlaps *confirmed*: the clients' ops say what they
 * believed, the ledger says what the resource did.
 */
export interface BankView {
  /** The first successful `final-read` per account. */
  readonly finalReads: Map<number, AccountFinalRead>;
  /** Every client `write`, in completion order, then the ones the history ended before. */
  readonly writes: BankWrite[];
  /** Every client `acquire`, in invocation order, with its completion (null: the history ended first). */
  readonly acquires: OpPair<unknown, AcquireOk>[];
}

export interface AccountFinalRead {
  value: FinalRead;
  /** History index of the `final-read` ok op. */
  index: number;
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

/**
 * Each part is computed on first use and kept: a checker that crashes on a malformed final read (no ledger) crashes
 * on its own, inside its own `runChecker`, and the parts that do not need the ledger still work.
 */
export function bankView(history: History): BankView {
  let finalReads: Map<number, AccountFinalRead> | undefined;
  let writes: BankWrite[] | undefined;
  let acquires: OpPair<unknown, AcquireOk>[] | undefined;
  return {
    get finalReads() {
      return (finalReads ??= finalReadsOf(history.ops));
    },
    get writes() {
      return (writes ??= bankWrites(history, this.finalReads));
    },
    get acquires() {
      return (acquires ??= history.pairs.filter(
        (p): p is OpPair<unknown, AcquireOk> => typeof p.invoke.process === 'number' && p.invoke.f === 'acquire',
      ));
    },
  };
}

function finalReadsOf(ops: readonly Op[]): Map<number, AccountFinalRead> {
  const reads = new Map<number, AccountFinalRead>();
  for (const op of ops) {
    if (op.process !== 'harness' || op.f !== 'final-read' || op.type !== 'ok') continue;
    const value = op.value as FinalRead;
    if (!reads.has(value.account)) reads.set(value.account, { value, index: op.index });
  }
  return reads;
}

function bankWrites(history: History, ledgers: Map<number, AccountFinalRead>): BankWrite[] {
  const writes: BankWrite[] = [];
  const complete = (invoke: Op<WriteValue>, op: Op | null): void => {
    const outcome = op === null ? 'info' : (op.type as BankWrite['outcome']);
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
  const isClientWrite = (op: Op): boolean => typeof op.process === 'number' && op.f === 'write';
  for (const op of history.ops) {
    if (op.type === 'invoke') continue;
    const invoke = history.invokeOf(op);
    if (invoke && isClientWrite(invoke)) complete(invoke as Op<WriteValue>, op);
  }
  for (const invoke of history.openInvokes) if (isClientWrite(invoke)) complete(invoke as Op<WriteValue>, null);

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
