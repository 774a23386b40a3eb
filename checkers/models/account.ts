import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { FinalRead, ReadOk, WriteValue } from '../../history/bank.ts';
import type { Model, Operation } from '../model.ts';

/**
 * The bank account as the lock is supposed to make it look: each client's critical section — read the balance,
 * write `read + delta` — is one atomic read-modify-write. A lost update (two clients read the same balance and
 * both write) then has no sequential explanation: whichever RMW goes second read a balance that was no longer
 * there. That is why this model, not a plain register, decides the bank workload's linearizability.
 *
 * State: one account's balance (`null` until known). Partitioned per account, so each search holds one number.
 */
export type AccountInput =
  /** The opening balance, from the harness's final read; placed before everything else. */
  | { kind: 'open'; account: number; balance: number }
  /** A client's read → write; `outcome: 'unknown'` when the write timed out (it may or may not have landed). */
  | { kind: 'rmw'; account: number; to: number; delta: number; outcome: 'ok' | 'unknown' }
  /** A read with no write after it (the write failed, or never came), or the harness's final read. */
  | { kind: 'read'; account: number };

/** Output: the balance the op read. */
export type AccountOutput = number;

export const accountModel: Model<number | null, AccountInput, AccountOutput> = {
  name: 'account',
  init: () => null,
  step(balance, input, read) {
    if (input.kind === 'open') return [balance === null, input.balance];
    // With no opening balance in the history, the first op to read one tells us what it was.
    const consistent = read === undefined || balance === null || balance === read;
    if (!consistent) return [false, balance];
    if (input.kind === 'read') return [true, balance ?? read ?? null];
    return [true, input.to];
  },
  partition: (ops) => {
    const byAccount = new Map<number, Operation<AccountInput, AccountOutput>[]>();
    for (const op of ops) {
      const group = byAccount.get(op.input.account);
      if (group) group.push(op);
      else byAccount.set(op.input.account, [op]);
    }
    return [...byAccount.values()];
  },
  hash: (balance) => String(balance),
  // The unknown balance (null, before the opening one) accepts any read, but no op leaves it, which is all the
  // footprint contract asks.
  footprint(input, read) {
    if (input.kind === 'open') return { needs: 'null', leaves: String(input.balance) };
    const needs = read === undefined ? undefined : String(read);
    return input.kind === 'read'
      ? needs === undefined
        ? {}
        : { needs }
      : { ...(needs === undefined ? {} : { needs }), leaves: String(input.to) };
  },
  describeOperation(input, read) {
    const prefix = `account ${input.account}: `;
    switch (input.kind) {
      case 'open':
        return `${prefix}opening balance ${input.balance}`;
      case 'read':
        return `${prefix}read ${read ?? '?'}`;
      case 'rmw': {
        const sign = input.delta < 0 ? '' : '+';
        const outcome = input.outcome === 'unknown' ? ' (write outcome unknown)' : '';
        return `${prefix}read ${read ?? '?'}, wrote ${input.to} (${sign}${input.delta})${outcome}`;
      }
    }
  },
  describeState: (balance) => (balance === null ? 'balance unknown' : `balance ${balance}`),
};

type AccountOperation = Operation<AccountInput, AccountOutput>;

/**
 * Builds the account model's ops from a bank history. Per client process, a `read` ok followed by its `write`
 * forms one RMW spanning read-invoke → write-completion:
 *
 * - write `ok`: it took effect;
 * - write `info` (or no completion): it may or may not have taken effect, at any time after its call, so the
 *   RMW returns at infinity — and if it is placed, its read must still match the balance at that point;
 * - write `fail` (stale token, version conflict, lock lost): it did not happen, so the read stands alone.
 *
 * A read `info`/`fail` says nothing and is dropped. A write with no read before it is checked against its own
 * `from`. The harness's `final-read` is a read at the end and supplies each account's opening balance.
 *
 * When the final read includes the account's ledger, a timed-out write with no ledger row never took effect
 * (the resource records every commit), so it is treated like a failed one. Besides being true, this matters
 * for speed: a never-placed op stays in the search's list and is retried after every step.
 */
export function accountOperations(input: History | readonly Op[]): AccountOperation[] {
  const { finalReads: ledgers, writes } = History.of(input).bank;
  const neverLanded = new Set(
    writes
      .filter((w) => w.outcome === 'info' && w.writeId === null && ledgers.has(w.account))
      .map((w) => w.invokeIndex),
  );
  const s: Pairing = { ops: [], open: new Map(), lastRead: new Map(), opened: new Set() };
  for (const op of History.of(input).ops) {
    if (op.process === 'harness') harnessOp(s, op);
    else if (typeof op.process === 'number') clientOp(s, op.process, op, neverLanded);
  }
  for (const [process, invoke] of s.open) {
    if (typeof process !== 'number' || invoke.f !== 'write') continue;
    if (neverLanded.has(invoke.index)) flushRead(s, process);
    else pushWrite(s, process, invoke as Op<WriteValue>, undefined);
  }
  for (const process of [...s.lastRead.keys()]) flushRead(s, process);
  return s.ops;
}

/** accountOperations' walk so far: the ops built, each process's open invoke and its read still waiting for a write. */
interface Pairing {
  ops: AccountOperation[];
  open: Map<number | string, Op>;
  lastRead: Map<number, { invoke: Op; ok: Op<ReadOk> }>;
  /** Accounts whose opening balance is already an op. */
  opened: Set<number>;
}

/** The harness's final read: the account's opening balance (once) and a read at the end. */
function harnessOp(s: Pairing, op: Op): void {
  if (op.f !== 'final-read') return;
  if (op.type === 'invoke') {
    s.open.set('harness', op);
    return;
  }
  const invoke = s.open.get('harness');
  s.open.delete('harness');
  if (op.type !== 'ok') return;
  const v = op.value as FinalRead;
  if (!s.opened.has(v.account)) {
    s.opened.add(v.account);
    s.ops.push({
      process: 'harness',
      input: { kind: 'open', account: v.account, balance: v.initialBalance },
      output: undefined,
      call: -2,
      return: -1,
      indexes: [op.index],
    });
  }
  s.ops.push({
    process: 'harness',
    input: { kind: 'read', account: v.account },
    output: v.balance,
    call: invoke ? invoke.index : op.index,
    return: op.index,
    indexes: invoke ? [invoke.index, op.index] : [op.index],
  });
}

/** A client's op: a read ok waits for its write; a write that may have landed becomes an RMW (pushWrite). */
function clientOp(s: Pairing, process: number, op: Op, neverLanded: ReadonlySet<number>): void {
  if (op.type === 'invoke') {
    // A new lock round: a write from now on belongs to a new read.
    if (op.f === 'acquire') flushRead(s, process);
    s.open.set(process, op);
    return;
  }
  const invoke = s.open.get(process);
  s.open.delete(process);
  if (!invoke) return;
  if (invoke.f === 'read') {
    if (op.type === 'ok') {
      flushRead(s, process);
      s.lastRead.set(process, { invoke, ok: op as Op<ReadOk> });
    }
  } else if (invoke.f === 'write') {
    if (op.type === 'fail' || neverLanded.has(invoke.index)) flushRead(s, process);
    else pushWrite(s, process, invoke as Op<WriteValue>, op);
  }
}

/** The process's waiting read, if any, as a read on its own. */
function flushRead(s: Pairing, process: number): void {
  const r = s.lastRead.get(process);
  if (!r) return;
  s.lastRead.delete(process);
  s.ops.push({
    process,
    input: { kind: 'read', account: r.ok.value.account },
    output: r.ok.value.balance,
    call: r.invoke.index,
    return: r.ok.index,
    indexes: [r.invoke.index, r.ok.index],
  });
}

/** A write that may have taken effect, with the read of the same account before it as one RMW (else its own `from`). */
function pushWrite(s: Pairing, process: number, invoke: Op<WriteValue>, completion: Op | undefined): void {
  const w = invoke.value;
  const r = s.lastRead.get(process);
  const read = r && r.ok.value.account === w.account ? r : undefined;
  if (read) s.lastRead.delete(process);
  else flushRead(s, process);
  const known = completion?.type === 'ok';
  s.ops.push({
    process,
    input: { kind: 'rmw', account: w.account, to: w.to, delta: w.delta, outcome: known ? 'ok' : 'unknown' },
    output: read ? read.ok.value.balance : w.from,
    call: read ? read.invoke.index : invoke.index,
    return: known ? completion.index : Infinity,
    indexes: [
      ...(read ? [read.invoke.index, read.ok.index] : []),
      invoke.index,
      ...(completion ? [completion.index] : []),
    ],
  });
}
