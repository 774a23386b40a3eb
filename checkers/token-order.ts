import { History } from '../history/history.ts';
import type { Op } from '../history/op.ts';
import type { CheckerResult } from './run-results.ts';

/** One granted lock: an `acquire` that completed `ok` with a token. */
export interface Grant {
  account: number;
  process: number;
  /** History indexes of the acquire's invoke and ok completion. */
  invokeIndex: number;
  index: number;
  invokedAt: number;
  grantedAt: number;
  token: string;
}

export interface TokenViolation {
  account: number;
  /** The grant that completed first… */
  earlier: Grant;
  /** …and one invoked after it that got a token no larger. */
  later: Grant;
  kind: 'equal' | 'backwards';
}

export interface TokenOrderResult extends CheckerResult {
  grantsChecked: number;
  violations: TokenViolation[];
  notes: string[];
}

const MAX_VIOLATIONS = 100;

/**
 * What `token: 'monotonic'` promises: every later holder gets a larger token. "Later" is real time — an acquire
 * that completed before another was invoked was granted first, whatever the two did afterwards — so the later
 * one's token must be strictly larger, per account (lock key). Two acquires whose intervals overlap may have
 * been granted in either order and constrain nothing. This checks the lock, not the data: a violation is
 * INVALID even when the resource's fence happened to keep the balance right, because the next resource a user
 * fences with these tokens would not be.
 *
 * Against each grant B, the earlier grants are those with grantedAt < B.invokedAt; a sweep in completion order
 * keeps their largest token, so the check is O(n log n) and names the grant that holds the larger token.
 */
export function checkTokenOrder(input: History | readonly Op[]): TokenOrderResult {
  const notes: string[] = [];
  const byAccount = new Map<number, Grant[]>();
  let unparseable = 0;
  let withoutToken = 0;
  for (const { invoke, completion: op } of History.of(input).bank.acquires) {
    if (op?.type !== 'ok') continue;
    const v = op.value;
    if (v?.token === undefined || v.token === null) {
      withoutToken++;
      continue;
    }
    if (!/^\s*-?\d+\s*$/.test(String(v.token))) {
      unparseable++;
      continue;
    }
    const grant: Grant = {
      account: v.account,
      process: op.process as number,
      invokeIndex: invoke.index,
      index: op.index,
      invokedAt: invoke.time,
      grantedAt: op.time,
      token: String(v.token).trim(),
    };
    const list = byAccount.get(grant.account) ?? [];
    list.push(grant);
    byAccount.set(grant.account, list);
  }

  const violations: TokenViolation[] = [];
  let grantsChecked = 0;
  for (const [account, grants] of [...byAccount].sort((a, b) => a[0] - b[0])) {
    grantsChecked += grants.length;
    const byCompletion = [...grants].sort((a, b) => a.grantedAt - b.grantedAt || a.index - b.index);
    const byInvoke = [...grants].sort((a, b) => a.invokedAt - b.invokedAt || a.invokeIndex - b.invokeIndex);
    let max: Grant | undefined;
    let i = 0;
    for (const later of byInvoke) {
      while (i < byCompletion.length && byCompletion[i].grantedAt < later.invokedAt) {
        const g = byCompletion[i++];
        if (!max || BigInt(g.token) > BigInt(max.token)) max = g;
      }
      if (max && BigInt(later.token) <= BigInt(max.token) && violations.length < MAX_VIOLATIONS) {
        violations.push({
          account,
          earlier: max,
          later,
          kind: BigInt(later.token) === BigInt(max.token) ? 'equal' : 'backwards',
        });
      }
    }
  }
  if (violations.length >= MAX_VIOLATIONS) notes.push(`stopped listing at ${MAX_VIOLATIONS} violations`);
  if (withoutToken > 0)
    notes.push(`${withoutToken} granted acquire(s) carried no token although the strategy declares a monotonic one`);
  if (unparseable > 0) notes.push(`${unparseable} token(s) are not decimal integers and could not be compared`);
  if (grantsChecked === 0) notes.push('no granted acquire carried a token');
  const valid = violations.length > 0 ? false : withoutToken > 0 || unparseable > 0 ? 'unknown' : true;
  return { valid, grantsChecked, violations, notes };
}

/** One line naming both acquires, for the summary and the report. */
export function describeTokenViolation(v: TokenViolation): string {
  const g = (x: Grant) => `p${x.process} acquire #${x.index} token ${x.token}`;
  return `account ${v.account}: ${g(v.later)} was invoked after ${g(v.earlier)} had been granted, yet its token is ${v.kind === 'equal' ? 'equal' : 'smaller'}`;
}
