import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { FinalRead, LedgerRow } from '../history/bank.ts';
import type { BankView, BankWrite } from '../history/bank-view.ts';
import type { CheckerResult, LostUpdate } from './run-results.ts';
import { upperBound } from './upper-bound.ts';

export interface AccountSummary {
  account: number;
  initialBalance: number;
  finalBalance: number;
  committedWrites: number;
  lostWrites: number;
  /** initialBalance + the deltas of every committed write that survived: must equal finalBalance. */
  expectedBalance: number;
}

export interface LostUpdatesResult extends CheckerResult {
  lostUpdates: LostUpdate[];
  accounts: AccountSummary[];
  /**
   * Places where the ledger, the final balance and the clients' writes disagree in a way no lock failure can
   * explain. Each one is a harness (or resource) bug until proven otherwise.
   */
  inconsistencies: string[];
}

/**
 * Lost updates, decided by the resource's ledger (authoritative, unlike the clients' view).
 *
 * Every write records the write it was based on (`basedOn` = `lastWriteId` of the read it followed). The final
 * balance is therefore the end of a chain: last row → its base → … → 0 (the opening balance). The writes on that
 * chain are the ones whose effect survives; every other committed write is lost. A lost write L was erased by
 * the first later write W based on something older than L (basedOn < L < W): W had not seen L.
 *
 * (The simpler rule "W based on B erases every write in (B, W)" over-counts when a third write was based on one
 * of the erased ones and so carried its effect forward; the chain is exact.)
 */
export function checkLostUpdates(input: History | readonly Op[]): LostUpdatesResult {
  const { finalReads: ledgers, writes } = History.of(input).bank;
  const opIndexOf = new Map<number, number>();
  for (const w of writes) {
    if (w.writeId !== null) opIndexOf.set(w.writeId, w.completeIndex ?? w.invokeIndex);
  }

  const lostUpdates: LostUpdate[] = [];
  const inconsistencies: string[] = [];
  const accounts = [...ledgers]
    .sort((a, b) => a[0] - b[0])
    .map(([account, { value: final }]) => checkAccount(account, final, opIndexOf, lostUpdates, inconsistencies));
  inconsistencies.push(...unledgeredWrites(ledgers, writes));

  const written = new Set(writes.map((w) => w.account));
  const unread = [...written].filter((a) => !ledgers.has(a)).sort((a, b) => a - b);
  const notes: string[] = [];
  if (unread.length > 0)
    notes.push(`no final-read for account(s) ${unread.join(', ')}: their lost updates cannot be counted`);

  const valid = lostUpdates.length > 0 ? false : unread.length > 0 || inconsistencies.length > 0 ? 'unknown' : true;
  return { valid, lostUpdates, accounts, inconsistencies, ...(notes.length ? { notes } : {}) };
}

/**
 * One account: walk its surviving chain (survivingChain), then every committed row off it is lost to the write
 * that skipped it (findLost). Pushes the lost updates and the inconsistencies found; returns the account's summary.
 */
function checkAccount(
  account: number,
  final: FinalRead,
  opIndexOf: ReadonlyMap<number, number>,
  lostUpdates: LostUpdate[],
  inconsistencies: string[],
): AccountSummary {
  const rows = final.ledger.filter((r) => r.account === account).sort((a, b) => a.writeId - b.writeId);
  const { surviving, expected } = survivingChain(account, rows, final, inconsistencies);
  const lost = findLost(rows, surviving);
  for (const { lost: row, overwrittenBy } of lost) {
    if (!overwrittenBy) {
      inconsistencies.push(
        `account ${account}: write ${row.writeId} is missing from the final balance but no later write skipped it`,
      );
      continue;
    }
    const lostOpIndex = opIndexOf.get(row.writeId);
    const overwrittenByOpIndex = opIndexOf.get(overwrittenBy.writeId);
    lostUpdates.push({
      account,
      lost: row,
      overwrittenBy,
      ...(lostOpIndex !== undefined ? { lostOpIndex } : {}),
      ...(overwrittenByOpIndex !== undefined ? { overwrittenByOpIndex } : {}),
    });
  }
  return {
    account,
    initialBalance: final.initialBalance,
    finalBalance: final.balance,
    committedWrites: rows.length,
    lostWrites: lost.length,
    expectedBalance: expected,
  };
}

/**
 * The chain from the last ledger row back through each row's base to the opening balance: the writes whose
 * effect survives, and the balance they add up to. Every link that does not hold is an inconsistency.
 */
function survivingChain(
  account: number,
  rows: readonly LedgerRow[],
  final: FinalRead,
  inconsistencies: string[],
): { surviving: Set<number>; expected: number } {
  const byId = new Map(rows.map((r) => [r.writeId, r]));
  const surviving = new Set<number>();
  let expected = final.initialBalance;
  const last = rows[rows.length - 1];
  if (last && last.to !== final.balance) {
    inconsistencies.push(
      `account ${account}: final balance ${final.balance} but the last ledger row (write ${last.writeId}) wrote ${last.to}`,
    );
  }
  for (let row = last; row !== undefined; ) {
    surviving.add(row.writeId);
    expected += row.delta;
    if (row.basedOn === 0) {
      if (row.from !== final.initialBalance) {
        inconsistencies.push(
          `account ${account}: write ${row.writeId} is based on the opening balance ${final.initialBalance} but read ${row.from}`,
        );
      }
      break;
    }
    const base = byId.get(row.basedOn);
    if (!base || base.writeId >= row.writeId) {
      inconsistencies.push(
        `account ${account}: write ${row.writeId} is based on write ${row.basedOn}, which is not an earlier row of this account's ledger`,
      );
      break;
    }
    if (base.to !== row.from) {
      inconsistencies.push(
        `account ${account}: write ${row.writeId} read ${row.from} but its base, write ${base.writeId}, wrote ${base.to}`,
      );
    }
    row = base;
  }
  if (expected !== final.balance) {
    inconsistencies.push(
      `account ${account}: final balance ${final.balance} ≠ opening ${final.initialBalance} + surviving deltas = ${expected}`,
    );
  }
  return { surviving, expected };
}

/** A write the client saw commit must be in the ledger, or the resource (or our journal) dropped it. */
function unledgeredWrites(ledgers: BankView['finalReads'], writes: readonly BankWrite[]): string[] {
  const ledgerIds = new Set(
    [...ledgers.values()].flatMap(({ value }) => value.ledger.map((r) => `${r.account}/${r.writeId}`)),
  );
  return writes
    .filter((w) => w.outcome === 'ok' && ledgers.has(w.account))
    .filter((w) => w.writeId === null || !ledgerIds.has(`${w.account}/${w.writeId}`))
    .map(
      (w) =>
        `write op #${w.completeIndex} (process ${w.process}) completed ok with write id ${w.writeId} but the ledger has no such row`,
    );
}

/**
 * Rows not on the surviving chain, each with the first later row whose base is older than it. Walks rows in
 * commit order; a skip-pointer array makes each row get assigned once, so it stays O(n) even when many writes
 * skip over the same long stretch.
 */
function findLost(rows: LedgerRow[], surviving: Set<number>): { lost: LedgerRow; overwrittenBy?: LedgerRow }[] {
  const n = rows.length;
  const overwrittenBy: (LedgerRow | undefined)[] = new Array(n);
  const skip = new Int32Array(n + 1).map((_, i) => i);
  const find = (i: number): number => {
    while (skip[i] !== i) {
      skip[i] = skip[skip[i]];
      i = skip[i];
    }
    return i;
  };
  const ids = rows.map((r) => r.writeId);
  for (let w = 0; w < n; w++) {
    // Positions of rows with basedOn < id < this row's id: the rows this write did not see.
    let i = find(upperBound(ids, rows[w].basedOn));
    while (i < w) {
      if (!surviving.has(rows[i].writeId)) overwrittenBy[i] = rows[w];
      skip[i] = i + 1;
      i = find(i + 1);
    }
  }
  const lost: { lost: LedgerRow; overwrittenBy?: LedgerRow }[] = [];
  for (let i = 0; i < n; i++) {
    if (!surviving.has(rows[i].writeId)) lost.push({ lost: rows[i], overwrittenBy: overwrittenBy[i] });
  }
  return lost;
}
