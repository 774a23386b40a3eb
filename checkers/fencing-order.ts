import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { BankView, BankWrite } from '../history/bank-view.ts';
import type { CheckerResult } from './run-results.ts';
import { STALE_REFUSALS } from '../history/stale-write.ts';

export interface TokenRegression {
  account: number;
  /** The write that was accepted with an older token… */
  writeId: number;
  token: string;
  /** …after this write had already been accepted with a newer one. */
  afterWriteId: number;
  afterToken: string;
}

export interface FencingOrderResult extends CheckerResult {
  /** Writes the resource refused as stale (`write` fail, `stale-token` or `version-conflict`): the fence doing its job. */
  staleWritesRejected: number;
  /** Committed writes that carried a token and were checked. */
  tokensChecked: number;
  regressions: TokenRegression[];
  /** Committed writes without a token: in a fenced run, writes the fence did not cover. */
  unfencedWrites: number;
  /** Where the committed writes came from: the resource's ledger, or the clients' ok writes if there was none. */
  source: 'ledger' | 'history' | 'none';
  notes: string[];
}

/**
 * Fencing order: the tokens of the writes the resource accepted never go backwards, per account, in commit
 * order. Tokens are 64-bit (etcd revisions, ZooKeeper zxids), so they are compared as BigInt. Equal tokens are
 * fine: one holder writing twice. Only a fenced run (`--fencing`) can fail this check; otherwise regressions are
 * reported for information. `unfencedWrites` says how many committed writes carried no token.
 */
export function checkFencingOrder(input: History | readonly Op[], opts: { fencing: boolean }): FencingOrderResult {
  const { finalReads: ledgers, writes } = History.of(input).bank;
  const staleWritesRejected = writes.filter(
    (w) => w.outcome === 'fail' && w.error !== undefined && STALE_REFUSALS.has(w.error),
  ).length;
  const notes: string[] = [];
  const { committed, fromHistory } = committedTokens(ledgers, writes);
  if (fromHistory.size > 0) {
    notes.push(
      `no final-read for account(s) ${[...fromHistory].sort((a, b) => a - b).join(', ')}: checked the clients' ok writes instead of the ledger`,
    );
  }

  const tally: TokenTally = { regressions: [], tokensChecked: 0, unfencedWrites: 0, unparseable: 0 };
  for (const [account, rows] of [...committed].sort((a, b) => a[0] - b[0])) {
    const max = checkAccountTokens(account, rows, tally);
    const fence = ledgers.get(account)?.value.fence;
    const fenceValue = fence == null ? undefined : parseToken(fence);
    if (max && fenceValue !== undefined && max.value > fenceValue) {
      notes.push(
        `account ${account}: the resource's fence is ${fence} but it accepted token ${max.token} (write ${max.writeId})`,
      );
    }
  }
  const { regressions, tokensChecked, unfencedWrites, unparseable } = tally;
  if (unparseable > 0) notes.push(`${unparseable} token(s) are not integers and could not be compared`);
  if (opts.fencing && unfencedWrites > 0)
    notes.push(`${unfencedWrites} committed write(s) carried no token in a fenced run`);
  if (tokensChecked === 0)
    notes.push(
      opts.fencing ? 'fenced run, but no committed write carried a token' : 'no tokens to check (unfenced run)',
    );

  // Only a fenced run promises ordered tokens. Without the fence the resource takes any token, so a regression
  // is what a paused former holder looks like — the damage, if any, is the lost-updates checker's to judge.
  if (!opts.fencing && regressions.length > 0) {
    notes.push(`unfenced run: ${regressions.length} token regression(s) reported for information, not as a violation`);
  }
  const valid = opts.fencing && regressions.length > 0 ? false : opts.fencing && unparseable > 0 ? 'unknown' : true;
  return {
    valid,
    staleWritesRejected,
    tokensChecked,
    regressions,
    unfencedWrites,
    source: ledgers.size > 0 ? 'ledger' : fromHistory.size > 0 ? 'history' : 'none',
    notes,
  };
}

type CommittedToken = { writeId: number; token: string | null };

/**
 * Per account: committed writes as (writeId, token). The ledger is authoritative; the clients' ok writes are a
 * fallback for accounts the harness could not read at the end (`fromHistory`).
 */
function committedTokens(
  ledgers: BankView['finalReads'],
  writes: readonly BankWrite[],
): { committed: Map<number, CommittedToken[]>; fromHistory: Set<number> } {
  const committed = new Map<number, CommittedToken[]>();
  for (const [account, { value }] of ledgers) {
    committed.set(
      account,
      value.ledger.filter((r) => r.account === account).map((r) => ({ writeId: r.writeId, token: r.token })),
    );
  }
  const fromHistory = new Set<number>();
  for (const w of writes) {
    if (ledgers.has(w.account) || w.outcome !== 'ok' || w.writeId === null) continue;
    fromHistory.add(w.account);
    const list = committed.get(w.account) ?? [];
    list.push({ writeId: w.writeId, token: w.value.token ?? null });
    committed.set(w.account, list);
  }
  return { committed, fromHistory };
}

/** What checkAccountTokens counts, summed over the accounts. */
interface TokenTally {
  regressions: TokenRegression[];
  tokensChecked: number;
  unfencedWrites: number;
  unparseable: number;
}

/**
 * One account's writes in commit order (sorts `rows` by write id): every token below the highest seen so far is
 * a regression. Returns that highest token, for the comparison with the resource's own fence.
 */
function checkAccountTokens(
  account: number,
  rows: CommittedToken[],
  tally: TokenTally,
): { writeId: number; token: string; value: bigint } | undefined {
  rows.sort((a, b) => a.writeId - b.writeId);
  let max: { writeId: number; token: string; value: bigint } | undefined;
  for (const row of rows) {
    if (row.token === null) {
      tally.unfencedWrites++;
      continue;
    }
    const value = parseToken(row.token);
    if (value === undefined) {
      tally.unparseable++;
      continue;
    }
    tally.tokensChecked++;
    if (max && value < max.value) {
      tally.regressions.push({
        account,
        writeId: row.writeId,
        token: String(row.token),
        afterWriteId: max.writeId,
        afterToken: max.token,
      });
    } else if (!max || value > max.value) {
      max = { writeId: row.writeId, token: String(row.token), value };
    }
  }
  return max;
}

/** Tokens should be decimal strings; a driver may hand back a number instead, which is read the same way. */
function parseToken(token: string | number): bigint | undefined {
  const text = String(token).trim();
  return /^-?\d+$/.test(text) ? BigInt(text) : undefined;
}
