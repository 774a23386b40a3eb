import { History } from '../../history/history.ts';
import type { Op } from '../../history/op.ts';
import type { CheckerResult } from '../run-results.ts';
import { classifyOverlaps, type PromiseClass, type PromiseOverlap } from './promise-overlaps.ts';
import { promiseHolds, type PromiseMutant, type PromiseTerms } from './promise-windows.ts';

export type { PromiseTerms } from './promise-windows.ts';

export interface PromiseResult extends CheckerResult {
  /** Holds checked, and how many of them had no known promise. */
  holds: number;
  unknownHolds: number;
  counts: Record<PromiseClass, number>;
  /** Outlived and own-clock overlaps by the fault active on the late holder (`no fault` for none). */
  byCause: Record<string, number>;
  overlaps: PromiseOverlap[];
  /** Why holds had no known promise (the first such reason): what the lock or the record lacks. */
  unknownWhy?: string;
}

/**
 * The lock's promise (docs/checkers.md#the-locks-promise): every hold gets the window the lock promised it — from
 * its acquire's completion to the earliest of its lease from the acquire's invoke, its reported validity, its first
 * release — and every overlap of two holds is classified by whose fault it is. Only a broken promise makes the result
 * invalid; outlived, own-clock and unknown overlaps are findings. Pure and synchronous.
 */
export function checkPromise(
  input: History | readonly Op[],
  terms: PromiseTerms | undefined,
  mutant: PromiseMutant = {},
): PromiseResult {
  const history = History.of(input);
  const holds = promiseHolds(history, terms, mutant);
  const heartbeats = terms?.lease?.kind === 'reported-from-request';
  const overlaps = classifyOverlaps(holds, history.bank.writes, history.faults, mutant, { heartbeats });
  const counts: Record<PromiseClass, number> = { broke: 0, outlived: 0, 'own-clock': 0, unknown: 0 };
  const byCause: Record<string, number> = {};
  for (const o of overlaps) {
    counts[o.class]++;
    if (o.class === 'outlived' || o.class === 'own-clock') for (const c of o.causes) byCause[c] = (byCause[c] ?? 0) + 1;
  }
  const unknown = holds.filter((h) => h.window === null);
  return {
    valid: counts.broke === 0,
    holds: holds.length,
    unknownHolds: unknown.length,
    counts,
    byCause,
    overlaps,
    ...(unknown.length ? { unknownWhy: unknown[0].unknownWhy } : {}),
  };
}

/**
 * The summary's line: `promise: 0 broken · 3 outlived (pause-holder ×3)`, with own-clock and unknown when there are
 * some (unknown says why, so an old record or a lock that reports no lease says what to add); `promise: unknown — …`
 * when no hold's promise was known at all. Null when the checker did not look or crashed.
 */
export function promiseLine(r: Partial<PromiseResult> | undefined): string | null {
  if (!r?.counts) return null;
  const c = r.counts;
  // No hold's promise known (an older record, a lock that reports no lease): "0 broken" would read as a finding.
  if (r.holds && r.unknownHolds === r.holds)
    return `promise: unknown — no hold's promise known: ${r.unknownWhy}${c.unknown ? ` (${c.unknown} overlap${c.unknown === 1 ? '' : 's'} whose fault cannot be told)` : ''}`;
  const causes = Object.entries(r.byCause ?? {})
    .sort((x, y) => y[1] - x[1])
    .map(([f, n]) => `${f} ×${n}`)
    .join(', ');
  const parts = [
    `${c.broke} broken`,
    `${c.outlived} outlived${causes && c.outlived ? ` (${causes})` : ''}`,
    ...(c['own-clock'] ? [`${c['own-clock']} own clock`] : []),
    ...(c.unknown ? [`${c.unknown} unknown (${r.unknownWhy ?? 'ambiguous'})`] : []),
  ];
  return `promise: ${parts.join(' · ')}`;
}

/** The broken promises, one sentence each: the reason an INVALID from this checker gives. */
export function brokenPromises(r: Partial<PromiseResult> | undefined): string[] {
  return (r?.overlaps ?? []).filter((o) => o.class === 'broke').map((o) => o.why);
}
