import { FAULT_NAMES, type FaultName } from '../history/fault-names.ts';
import { DECIDING_CHECKERS } from './check-run.ts';
import type { RunResults } from './run-results.ts';
import type { Op } from '../history/op.ts';
import { processOf } from '../history/fault-evidence-decoder.ts';

/**
 * What a failure is, lenient about pids, indexes and values and strict about the bug: which checker found it, what
 * kind of anomaly, and which fault's story completed in the run. A replay or a shrink counts a failure as the
 * original only when the signatures match, so one bug is never swapped for another (a paused holder's lost update
 * for a restart-empty one). Pure, from a run's results.
 */
export interface FailureSignature {
  checker: DecidingChecker;
  anomaly: AnomalyKind;
  /** The first fault (catalogue order) with a whole story — every step done, none held — or null for none. */
  story: FaultName | null;
}

export type DecidingChecker = (typeof DECIDING_CHECKERS)[number];

/** Each deciding checker's anomaly, in its words. */
export const ANOMALY_OF = {
  'lost-updates': 'lost-update',
  'mutual-exclusion': 'overlap',
  'fencing-order': 'stale-write-accepted',
  'token-order': 'token-regression',
  linearizable: 'not-linearizable',
} as const satisfies Record<DecidingChecker, string>;
export type AnomalyKind = (typeof ANOMALY_OF)[DecidingChecker];

/**
 * The signature of a failing run (the first deciding checker, in DECIDING_CHECKERS order, that found one), or null.
 * `holders` (shotHolders of its history): which client each shot struck, so the story named is one whose holder wrote
 * in the anomaly — in a run with many faults, the fault that caused it rather than the first that told a story.
 */
export function failureSignature(
  r: Pick<RunResults, 'checkers' | 'faultHits' | 'lostUpdateDetails' | 'overlapDetails'>,
  holders?: ReadonlyMap<number, number>,
): FailureSignature | null {
  const checker = DECIDING_CHECKERS.find((c) => r.checkers?.[c]?.valid === false);
  if (!checker) return null;
  const involved = new Set<number>([
    ...(r.lostUpdateDetails ?? []).flatMap((l) => [l.lost.process, l.overwrittenBy.process]),
    ...(r.overlapDetails ?? []).flatMap((o) => [o.a.process, o.b.process]),
  ]);
  const byInvolved =
    holders && involved.size ? wholeStory(r.faultHits ?? {}, (i) => involved.has(holders.get(i) ?? -1)) : null;
  return { checker, anomaly: ANOMALY_OF[checker], story: byInvolved ?? wholeStory(r.faultHits ?? {}) };
}

/**
 * The first fault (catalogue order) with a shot whose story completed with every step done — a held step is the lock
 * passing, not a failure's cause — among the shots `which` accepts (by the shot's history index).
 */
export function wholeStory(
  hits: RunResults['faultHits'],
  which: (index: number) => boolean = () => true,
): FaultName | null {
  for (const f of FAULT_NAMES) {
    const shots = hits[f]?.shots ?? [];
    if (
      shots.some((s) => which(s.index) && s.hit && s.story?.length && s.story.every((step) => step.status === 'done'))
    )
      return f;
  }
  return null;
}

/** The client process each aimed shot struck (its aim's, or delay-write's own `process`), by its start record's index. */
export function shotHolders(ops: readonly Op[]): Map<number, number> {
  const holders = new Map<number, number>();
  for (const op of ops) {
    if (op.process !== 'nemesis' || (op.value as { phase?: unknown } | null)?.phase !== 'start') continue;
    const who = processOf(op);
    if (who !== undefined) holders.set(op.index, who);
  }
  return holders;
}

export function sameSignature(a: FailureSignature | null, b: FailureSignature | null): boolean {
  return a !== null && b !== null && a.checker === b.checker && a.anomaly === b.anomaly && a.story === b.story;
}

/** `lost-updates/lost-update after pause-holder's story`: the one line a replay and a shrink print it as. */
export function describeSignature(s: FailureSignature | null): string {
  if (!s) return 'no failure';
  return `${s.checker}/${s.anomaly}${s.story ? ` after ${s.story}'s story` : ' with no whole fault story'}`;
}

/** A signature read from a file (a bundle, a scenario's `expect`): the value, or what is wrong with it. */
export function readSignature(raw: unknown): FailureSignature | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return 'a signature is { "checker": …, "anomaly": …, "story": <fault> | null }';
  const r = raw as Record<string, unknown>;
  const checker = r.checker as DecidingChecker;
  if (!(DECIDING_CHECKERS as readonly string[]).includes(checker))
    return `signature checker ${JSON.stringify(r.checker)}: one of ${DECIDING_CHECKERS.join(', ')}`;
  if (r.anomaly !== ANOMALY_OF[checker])
    return `signature anomaly ${JSON.stringify(r.anomaly)}: ${checker} finds ${ANOMALY_OF[checker]}`;
  if (r.story !== null && !(FAULT_NAMES as readonly unknown[]).includes(r.story))
    return `signature story ${JSON.stringify(r.story)}: a fault of the catalogue, or null`;
  return { checker, anomaly: ANOMALY_OF[checker], story: r.story as FaultName | null };
}
