import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import { fmtSpan } from '../liveness.ts';
import type { Checked, CheckerResult } from '../run-results.ts';
import { doubleOwnership, type DoubleOwnership } from './double-ownership.ts';
import { droppedGrants } from './dropped-grants.ts';
import { neverReleased, type NeverReleased } from './never-released.ts';
import { orphanedLocks, type OrphanedLock } from './orphaned-lock.ts';
import { releasedAnother, type ReleasedAnother } from './released-another.ts';

/**
 * What lost replies break, from the history and the reply-loss faults' own evidence (issue 46): orphaned locks,
 * releases that never released, releases that freed another's lock, and double ownership after a retried acquire.
 * Informational, like liveness without a bound: it never decides the run's verdict (the mutual-exclusion, promise
 * and lost-updates checkers judge the damage). It says INVALID when it found a defect — an orphan past the TTL plus
 * the client's retry budget, or any of the other three — and VALID when all it saw was a lease's expected cost. Its
 * `findings` (every orphan, expected or not, and each defect) are the summary's and the report's liveness lines.
 */
export interface LostRepliesResult extends CheckerResult {
  orphans: OrphanedLock[];
  neverReleased: NeverReleased[];
  releasedAnother: ReleasedAnother[];
  doubleOwnership: DoubleOwnership[];
  /** The sentences, defects first: what the summary and the report say. */
  findings: string[];
}

export interface LostRepliesOptions {
  /** The run's TTL: the yardstick where a fault did not record its own; null: unknown. */
  ttlMs: number | null;
}

export function checkLostReplies(input: History | readonly Op[], opts: LostRepliesOptions): LostRepliesResult {
  const history = History.of(input);
  const grants = droppedGrants(history);
  const orphans = orphanedLocks(history, grants, opts.ttlMs);
  const unreleased = neverReleased(history, grants, opts.ttlMs);
  const others = releasedAnother(history, opts.ttlMs);
  const doubles = doubleOwnership(history, grants, unreleased);
  // A count of two names its release: said once, as double ownership, not again as never released.
  const explained = new Set(doubles.map((d) => d.releaseIndex));
  const defects = [
    ...orphans.filter((o) => o.beyond).map((o) => o.text),
    ...unreleased.filter((n) => !explained.has(n.releaseIndex)).map((n) => n.text),
    ...others.map((r) => r.text),
    ...doubles.map((d) => d.text),
  ];
  return {
    valid: defects.length === 0,
    orphans,
    neverReleased: unreleased,
    releasedAnother: others,
    doubleOwnership: doubles,
    findings: [...defects, ...orphans.filter((o) => !o.beyond).map((o) => o.text)],
  };
}

/**
 * The summary's lines (results.json `liveness.lostReplies`): every defect, then the orphans within their yardstick —
 * the first in full, the rest counted with their span — so a 40 s run with ten expected orphans stays readable.
 * The report's liveness card says every one (`findings`).
 */
export function lostReplyLines(r: Checked<LostRepliesResult>): string[] {
  const expected = (r.orphans ?? []).filter((o) => !o.beyond);
  const defects = (r.findings ?? []).slice(0, (r.findings?.length ?? 0) - expected.length);
  if (expected.length <= 1) return [...defects, ...expected.map((o) => o.text)];
  const spans = expected.map((o) => o.durationMs);
  const [lo, hi] = [fmtSpan(Math.min(...spans)), fmtSpan(Math.max(...spans))];
  const range = lo === hi ? lo : `${lo} to ${hi}`;
  // A lock with no lease (a session advisory lock) has no TTL in its yardstick: its clients' retry budget alone.
  const yardstick = expected.every((o) => o.noLease !== undefined)
    ? "their clients' retry budget (no lease: no TTL)"
    : "the TTL plus their clients' retry budget";
  return [
    ...defects,
    expected[0].text,
    `${expected.length - 1} more orphaned lock${expected.length > 2 ? 's' : ''} like it (${range} each, all ${expected.length} within ${yardstick}; the report lists every one)`,
  ];
}
