import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { CheckerResult } from '../run-results.ts';
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
  const unreleased = neverReleased(history, opts.ttlMs);
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
